package demodata

import "logistics/ent/part"

// family is a kind of part the demo catalogue is made of.
type family struct {
	prefix     string
	unit       part.Unit
	names      []string
	sizes      []string
	materials  []string
	hazardous  bool
	perishable bool    // has lots and expiry dates
	weight     float64 // typical unit weight in kg
}

var families = []family{
	{"BLT", part.UnitEa, []string{"Hex bolt", "Carriage bolt", "Flange bolt", "Eye bolt", "U-bolt", "Anchor bolt", "Shoulder bolt", "Socket head cap bolt"},
		[]string{"M6x20", "M6x40", "M8x25", "M8x40", "M10x50", "M10x80", "M12x60", "M12x100", "M16x80", "M20x120"},
		[]string{"zinc plated steel", "stainless steel A2", "stainless steel A4", "hot-dip galvanised", "grade 8.8 steel", "grade 10.9 steel"}, false, false, 0.03},
	{"NUT", part.UnitEa, []string{"Hex nut", "Nylon lock nut", "Flange nut", "Wing nut", "Acorn cap nut", "Coupling nut"},
		[]string{"M6", "M8", "M10", "M12", "M16", "M20"}, []string{"zinc plated steel", "stainless steel A2", "brass"}, false, false, 0.01},
	{"WSH", part.UnitBox, []string{"Flat washer", "Spring lock washer", "Fender washer", "Sealing washer"},
		[]string{"M6 (box of 200)", "M8 (box of 200)", "M10 (box of 100)", "M12 (box of 100)"}, []string{"steel", "stainless steel", "nylon", "EPDM-bonded steel"}, false, false, 0.6},
	{"SCR", part.UnitBox, []string{"Wood screw", "Machine screw", "Self-tapping screw", "Drywall screw", "Deck screw"},
		[]string{"3.5x25 (box of 500)", "4x40 (box of 200)", "5x60 (box of 200)", "6x80 (box of 100)"}, []string{"yellow zinc", "black phosphate", "stainless steel"}, false, false, 0.9},
	{"BRG", part.UnitEa, []string{"Deep groove ball bearing", "Tapered roller bearing", "Pillow block bearing", "Needle roller bearing", "Thrust ball bearing"},
		[]string{"6204-2RS", "6205-ZZ", "6306-2RS", "30205", "UCP205", "51107"}, []string{"chrome steel", "stainless steel"}, false, false, 0.25},
	{"HSE", part.UnitM, []string{"Hydraulic hose", "Compressed air hose", "Suction hose", "Fuel hose"},
		[]string{"1/4in", "3/8in", "1/2in", "3/4in", "1in"}, []string{"2-wire braided", "PVC", "rubber", "polyurethane"}, false, false, 0.4},
	{"CBL", part.UnitM, []string{"Power cable", "Control cable", "Data cable Cat6", "Welding cable"},
		[]string{"3x1.5mm2", "3x2.5mm2", "5x4mm2", "4x0.75mm2", "35mm2"}, []string{"PVC sheathed", "halogen-free", "rubber sheathed"}, false, false, 0.15},
	{"TIE", part.UnitBox, []string{"Cable tie", "Releasable cable tie", "Hook and loop strap"},
		[]string{"100mm (bag of 1000)", "200mm (bag of 500)", "300mm (bag of 250)"}, []string{"nylon 6.6 black", "nylon 6.6 natural", "stainless steel"}, false, false, 0.3},
	{"PKG", part.UnitPallet, []string{"Stretch film roll", "Corrugated box", "Pallet wrap", "Bubble wrap roll", "Packing tape"},
		[]string{"500mm x 300m", "600x400x400", "17 micron", "1.2m x 100m", "48mm x 66m"}, []string{"LLDPE", "double wall kraft", "recycled"}, false, false, 180},
	{"CHM", part.UnitL, []string{"Paint thinner", "Hydraulic oil ISO 46", "Two-part epoxy adhesive", "Degreaser", "Cutting fluid"},
		[]string{"1L", "5L", "20L", "208L drum"}, []string{"solvent based", "mineral", "synthetic", "water based"}, true, true, 0.9},
	{"BAT", part.UnitEa, []string{"Lithium-ion battery", "Lead-acid battery", "Alkaline battery pack", "Forklift traction battery"},
		[]string{"18650 3.6V", "12V 7Ah", "AA (pack of 24)", "24V 280Ah"}, []string{"Li-ion", "AGM", "alkaline"}, true, true, 1.5},
	{"FLT", part.UnitEa, []string{"Oil filter", "Air filter", "Hydraulic return filter", "Fuel filter"},
		[]string{"W712/75", "C25114", "HF6177", "P550248"}, []string{"cellulose", "synthetic media", "glass fibre"}, false, false, 0.5},
	{"GRS", part.UnitKg, []string{"Lithium grease", "Copper anti-seize", "Food-grade grease", "Bearing grease"},
		[]string{"EP2", "NLGI 2", "NLGI 1", "H1"}, []string{"mineral", "synthetic"}, false, true, 1},
	{"SEA", part.UnitEa, []string{"O-ring", "Radial shaft seal", "Gasket", "V-ring seal"},
		[]string{"20x2", "35x52x7", "DN50 PN16", "VA-40"}, []string{"NBR", "FKM (Viton)", "EPDM", "PTFE"}, false, false, 0.01},
	{"TLS", part.UnitEa, []string{"Torque wrench", "Socket set", "Impact driver bit", "Pallet jack wheel"},
		[]string{"1/2in drive", "3/8in drive", "PH2", "200mm polyurethane"}, []string{"chrome vanadium", "S2 steel", "polyurethane"}, false, false, 1.2},
}

var firstNames = []string{"Anna", "Bram", "Chloé", "Daan", "Elif", "Finn", "Greta", "Hugo", "Ines", "Jan", "Karin", "Lars", "Marta", "Noah", "Olga", "Pieter", "Rosa", "Sven", "Tess", "Umar", "Vera", "Wim", "Yara", "Zoë"}
var lastNames = []string{"de Vries", "Jansen", "Müller", "Dubois", "García", "Rossi", "Nowak", "Andersson", "Smith", "Kowalski", "Bakker", "Peeters", "Schmidt", "Martin", "Silva", "Visser"}
var companies = []string{"Acme Industrial", "Nordic Machines", "Van Dijk Techniek", "Rhein Maschinenbau", "Iberia Components", "Atlas Marine", "Polder Agri", "Alpine Tools", "Baltic Shipyards", "Hanse Logistics", "Lumen Energy", "Delta Works"}
var streets = []string{"Hoofdstraat", "Industrieweg", "Havenstraat", "Main Street", "Bahnhofstraße", "Rue de la Gare", "Calle Mayor", "Via Roma", "Market Street", "Kanaalweg"}

type carrier struct {
	name   string
	format func(g *gen) string
}

var carriers = []carrier{
	{"UPS", func(g *gen) string { return "1Z" + g.alnum(16) }},
	{"DHL", func(g *gen) string { return g.digits(10) }},
	{"FedEx", func(g *gen) string { return g.digits(12) }},
	{"PostNL", func(g *gen) string { return "3S" + g.alnum(4) + g.digits(9) }},
	{"DPD", func(g *gen) string { return "0" + g.digits(13) }},
}
