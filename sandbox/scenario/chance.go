package scenario

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
)

// Draw is one chance draw of an outcome that carries a probability: the rule applies
// to the call when Value < Probability. Value is a function of the run's seed, the
// rule, the scope whose calls it counts and the call's number in that scope, so that
// a run repeated with the same seed and the same calls draws the same values.
type Draw struct {
	Rule        string  `json:"rule"` // "<scenario>#<index>"
	Step        int     `json:"step"` // the sequence step drawn for; -1 for a rule with then
	Call        int     `json:"call"` // 1 for the first call of the scope that reached the rule
	Probability float64 `json:"probability"`
	Value       float64 `json:"value"`
	Applied     bool    `json:"applied"`
}

// String renders the draw for a log line: "chaos#0 call 3: 0.4172 < 0.3 no".
func (d Draw) String() string {
	verdict, cmp := "no", ">="
	if d.Applied {
		verdict, cmp = "yes", "<"
	}
	return d.Rule + " call " + strconv.Itoa(d.Call) + ": " + strconv.FormatFloat(d.Value, 'f', 4, 64) + " " + cmp + " " +
		strconv.FormatFloat(d.Probability, 'g', -1, 64) + " " + verdict
}

// drawValue is a value in [0, 1) chosen by seed and the call: a PCG stream seeded
// with the run's seed and an FNV-1a hash of the rule, scope and call number.
func drawValue(seed uint64, rule, scope string, call int) float64 {
	h := fnv.New64a()
	h.Write([]byte(rule))
	h.Write([]byte{0})
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, int64(call), 10))
	return rand.New(rand.NewPCG(seed, h.Sum64())).Float64()
}

// draw decides whether an outcome with probability p applies to the call.
func draw(seed uint64, rule, scope string, step, call int, p float64) Draw {
	v := drawValue(seed, rule, scope, call)
	return Draw{Rule: rule, Step: step, Call: call, Probability: p, Value: v, Applied: v < p}
}

// ValidProbability reports whether p can be an outcome's probability: 0 to 1.
func ValidProbability(p float64) bool { return p >= 0 && p <= 1 }
