package profiles

import (
	"math"
	"strconv"
)

// MaxPrice bounds a price setting, in US dollars per million tokens: no
// model costs more, and a larger number is a slip (a price per token
// given as one per thousand, say).
const MaxPrice = 1000

// checkPrices checks a profile's prices (US dollars per million prompt
// and completion tokens; 0 is not set): each a finite number from 0 to
// MaxPrice, and both set or neither, so that a cost shown is never half
// of one.
func checkPrices(input, output float64) error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"input", input}, {"output", output}} {
		if math.IsNaN(p.v) || math.IsInf(p.v, 0) || p.v < 0 || p.v > MaxPrice {
			return invalidf("an %s price of %s: give US dollars per million tokens, from 0 (not set) to %d, such as 3 or 0.15",
				p.name, strconv.FormatFloat(p.v, 'g', -1, 64), MaxPrice)
		}
	}
	switch {
	case input > 0 && output == 0:
		return invalidf("give an output price as well as the input one ($%s per million tokens), or 0 for both to leave them unset",
			strconv.FormatFloat(input, 'g', -1, 64))
	case output > 0 && input == 0:
		return invalidf("give an input price as well as the output one ($%s per million tokens), or 0 for both to leave them unset",
			strconv.FormatFloat(output, 'g', -1, 64))
	}
	return nil
}
