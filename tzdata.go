package main

// The time-zone database is embedded: aggregate buckets take an IANA zone
// (tz=Europe/Amsterdam), and the container image's empty base has no
// /usr/share/zoneinfo. The system's is still preferred where there is one.
import _ "time/tzdata"
