package demodata

// city is a real place a demo hub stands in.
type city struct {
	code, name, country, tz, postal, street string
	lat, lon                                float64
	kind                                    string
}

// cities are the 50 demo hubs, AMS1 and RTM2 first (the seed's filter
// examples use them).
var cities = []city{
	{"AMS1", "Amsterdam", "NL", "Europe/Amsterdam", "1043 AP", "Naritaweg", 52.3791, 4.8441, "warehouse"},
	{"RTM2", "Rotterdam", "NL", "Europe/Amsterdam", "3089 JB", "Waalhaven Zuidzijde", 51.8840, 4.4393, "port"},
	{"ANR1", "Antwerp", "BE", "Europe/Brussels", "2030", "Noorderlaan", 51.2637, 4.4030, "port"},
	{"BRU1", "Brussels", "BE", "Europe/Brussels", "1130", "Haachtsesteenweg", 50.8798, 4.4274, "cross_dock"},
	{"HAM1", "Hamburg", "DE", "Europe/Berlin", "21129", "Finkenwerder Straße", 53.5353, 9.9014, "port"},
	{"BER1", "Berlin", "DE", "Europe/Berlin", "12529", "Flughafenstraße", 52.3667, 13.5033, "warehouse"},
	{"FRA1", "Frankfurt", "DE", "Europe/Berlin", "60549", "Cargo City Süd", 50.0379, 8.5622, "cross_dock"},
	{"MUC1", "Munich", "DE", "Europe/Berlin", "85356", "Nordallee", 48.3538, 11.7861, "warehouse"},
	{"CGN1", "Cologne", "DE", "Europe/Berlin", "51147", "Heinrich-Steinmann-Straße", 50.8659, 7.1427, "cross_dock"},
	{"DUS1", "Düsseldorf", "DE", "Europe/Berlin", "40474", "Flughafenstraße", 51.2895, 6.7668, "store"},
	{"PAR1", "Paris", "FR", "Europe/Paris", "95700", "Rue du Té", 49.0097, 2.5479, "warehouse"},
	{"LYS1", "Lyon", "FR", "Europe/Paris", "69007", "Port Edouard Herriot", 45.7290, 4.8340, "warehouse"},
	{"MRS1", "Marseille", "FR", "Europe/Paris", "13002", "Quai du Lazaret", 43.3090, 5.3660, "port"},
	{"LHR1", "London", "GB", "Europe/London", "TW6 3XA", "Shoreham Road", 51.4700, -0.4543, "warehouse"},
	{"MAN1", "Manchester", "GB", "Europe/London", "M90 5XZ", "Runger Lane", 53.3537, -2.2750, "cross_dock"},
	{"FXT1", "Felixstowe", "GB", "Europe/London", "IP11 4SY", "Dock Road", 51.9540, 1.3510, "port"},
	{"DUB1", "Dublin", "IE", "Europe/Dublin", "D01 K0Y8", "Alexandra Road", 53.3478, -6.2050, "port"},
	{"MAD1", "Madrid", "ES", "Europe/Madrid", "28042", "Avenida de la Hispanidad", 40.4719, -3.5626, "warehouse"},
	{"BCN1", "Barcelona", "ES", "Europe/Madrid", "08039", "Moll de Costa", 41.3520, 2.1580, "port"},
	{"VLC1", "Valencia", "ES", "Europe/Madrid", "46024", "Avenida del Puerto", 39.4467, -0.3176, "port"},
	{"LIS1", "Lisbon", "PT", "Europe/Lisbon", "1700-111", "Rua C do Aeroporto", 38.7742, -9.1342, "store"},
	{"MXP1", "Milan", "IT", "Europe/Rome", "21010", "Via Malpensa", 45.6306, 8.7281, "warehouse"},
	{"FCO1", "Rome", "IT", "Europe/Rome", "00054", "Via Portuense", 41.8003, 12.2389, "store"},
	{"GOA1", "Genoa", "IT", "Europe/Rome", "16149", "Calata Sanità", 44.4056, 8.9146, "port"},
	{"ZRH1", "Zurich", "CH", "Europe/Zurich", "8058", "Flughofstrasse", 47.4582, 8.5555, "store"},
	{"VIE1", "Vienna", "AT", "Europe/Vienna", "1300", "Objekt 261", 48.1103, 16.5697, "warehouse"},
	{"PRG1", "Prague", "CZ", "Europe/Prague", "16100", "Aviatická", 50.1008, 14.2600, "cross_dock"},
	{"WAW1", "Warsaw", "PL", "Europe/Warsaw", "02-146", "Żwirki i Wigury", 52.1657, 20.9671, "warehouse"},
	{"GDN1", "Gdańsk", "PL", "Europe/Warsaw", "80-601", "Przemysłowa", 54.3970, 18.6750, "port"},
	{"BUD1", "Budapest", "HU", "Europe/Budapest", "1185", "Ferihegy", 47.4298, 19.2611, "store"},
	{"CPH1", "Copenhagen", "DK", "Europe/Copenhagen", "2770", "Kastrup Lufthavnsvej", 55.6180, 12.6508, "warehouse"},
	{"GOT1", "Gothenburg", "SE", "Europe/Stockholm", "418 34", "Skandiahamnen", 57.6960, 11.8700, "port"},
	{"ARN1", "Stockholm", "SE", "Europe/Stockholm", "190 45", "Cargo City", 59.6498, 17.9238, "cross_dock"},
	{"OSL1", "Oslo", "NO", "Europe/Oslo", "2060", "Edvard Munchs veg", 60.1976, 11.1004, "store"},
	{"HEL1", "Helsinki", "FI", "Europe/Helsinki", "01530", "Lentäjäntie", 60.3172, 24.9633, "warehouse"},
	{"ATH1", "Athens", "GR", "Europe/Athens", "185 40", "Akti Miaouli", 37.9420, 23.6460, "port"},
	{"IST1", "Istanbul", "TR", "Europe/Istanbul", "34149", "Yeşilköy", 40.9769, 28.8146, "cross_dock"},
	{"JFK1", "New York", "US", "America/New_York", "11430", "Cargo Plaza", 40.6413, -73.7781, "warehouse"},
	{"NWK1", "Newark", "US", "America/New_York", "07114", "Port Newark", 40.6840, -74.1500, "port"},
	{"ORD1", "Chicago", "US", "America/Chicago", "60666", "Cargo Road", 41.9742, -87.9073, "cross_dock"},
	{"ATL1", "Atlanta", "US", "America/New_York", "30320", "Toffie Terrace", 33.6407, -84.4277, "warehouse"},
	{"DFW1", "Dallas", "US", "America/Chicago", "75261", "Air Cargo Road", 32.8998, -97.0403, "warehouse"},
	{"LAX1", "Los Angeles", "US", "America/Los_Angeles", "90045", "World Way West", 33.9416, -118.4085, "warehouse"},
	{"LGB1", "Long Beach", "US", "America/Los_Angeles", "90802", "Pier T Avenue", 33.7542, -118.2165, "port"},
	{"SEA1", "Seattle", "US", "America/Los_Angeles", "98158", "Air Cargo Road", 47.4502, -122.3088, "store"},
	{"YYZ1", "Toronto", "CA", "America/Toronto", "L5P 1B2", "Airport Road", 43.6777, -79.6248, "warehouse"},
	{"MEX1", "Mexico City", "MX", "America/Mexico_City", "15620", "Avenida Capitán Carlos León", 19.4361, -99.0719, "cross_dock"},
	{"GRU1", "São Paulo", "BR", "America/Sao_Paulo", "07190-100", "Rodovia Hélio Smidt", -23.4356, -46.4731, "warehouse"},
	{"SIN1", "Singapore", "SG", "Asia/Singapore", "819830", "Airline Road", 1.3644, 103.9915, "port"},
	{"SHA1", "Shanghai", "CN", "Asia/Shanghai", "200137", "Gangcheng Road", 31.3570, 121.5930, "port"},
}
