package demodata_test

import (
	"os"
	"strconv"
)

func benchScale() float64 {
	if f, err := strconv.ParseFloat(os.Getenv("DEMO_SCALE"), 64); err == nil {
		return f
	}
	return 0.1
}
