package release

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
)

// hll is a HyperLogLog sketch (2^14 registers, about 0.8% error) for
// counting distinct messages in bounded memory: a set of hashes would
// grow with the run. Sketches merge by register-wise max, so chunk and
// shard statistics combine exactly as one pass would.
type hll struct{ reg []uint8 }

const hllP = 14

func newHLL() *hll { return &hll{reg: make([]uint8, 1<<hllP)} }

func (h *hll) add(x uint64) {
	x = Mix(x)
	i := x >> (64 - hllP)
	rank := uint8(bits.LeadingZeros64(x<<hllP|1<<(hllP-1))) + 1
	if rank > h.reg[i] {
		h.reg[i] = rank
	}
}

func (h *hll) merge(o *hll) {
	for i, r := range o.reg {
		if r > h.reg[i] {
			h.reg[i] = r
		}
	}
}

// count estimates the number of distinct values, with the small-range
// correction (linear counting) that makes small runs nearly exact.
func (h *hll) count() float64 {
	m := float64(len(h.reg))
	sum, zeros := 0.0, 0
	for _, r := range h.reg {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	est := 0.7213 / (1 + 1.079/m) * m * m / sum
	if est <= 2.5*m && zeros > 0 {
		return m * math.Log(m/float64(zeros))
	}
	return est
}

func (h *hll) MarshalJSON() ([]byte, error) {
	return json.Marshal(base64.StdEncoding.EncodeToString(h.reg))
}

func (h *hll) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	reg, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(reg) != 1<<hllP {
		return fmt.Errorf("hll sketch: want %d base64 registers", 1<<hllP)
	}
	h.reg = reg
	return nil
}

// Mix is splitmix64's finalizer: it spreads a hash over all 64 bits.
func Mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
