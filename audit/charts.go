package audit

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Charts are laid out here, in Go, and the template only places the
// shapes: the page needs no chart library and no script to draw, and the
// geometry is testable.

// chart is one plot, in SVG user units.
type chart struct {
	ID, Title, Caption string
	Width, Height      int
	// Plot area, for the axes.
	PlotX, PlotY, PlotW, PlotH float64
	Bars                       []barView
	Ticks                      []tickView
	XLabel                     string
	Horizontal                 bool
	// Wide is a chart whose labels made it wider than the others: the
	// page gives it a row of its own.
	Wide bool
}

// barView is one bar with its category label and its value label.
type barView struct {
	X, Y, W, H float64
	Label      string
	LX, LY     float64
	Value      string
	VX, VY     float64
	Tip        string
}

// tickView is a horizontal grid line of a vertical bar chart.
type tickView struct {
	Y, LX float64
	Label string
}

// Layout of a vertical bar chart.
const (
	chartW      = 460
	chartH      = 260
	marginLeft  = 48
	marginRight = 12
	marginTop   = 18
	marginBelow = 46
)

// histogram charts how often each integer value occurs, grouping values
// into at most maxBars bars of a round width. Values between the
// smallest and the largest that never occur get an empty bar, so gaps
// show.
func histogram(id, title, xlabel, unit string, counts map[int]int, maxBars int) *chart {
	c := &chart{ID: id, Title: title, XLabel: xlabel, Width: chartW, Height: chartH,
		PlotX: marginLeft, PlotY: marginTop, PlotW: chartW - marginLeft - marginRight, PlotH: chartH - marginTop - marginBelow}
	if len(counts) == 0 {
		c.Caption = "no data"
		return c
	}
	keys := slices.Sorted(maps.Keys(counts))
	lo, hi := keys[0], keys[len(keys)-1]
	width := bucketWidth(hi-lo+1, maxBars)
	start := floorDiv(lo, width) * width
	n := floorDiv(hi-start, width) + 1
	bins := make([]int, n)
	total := 0
	for v, k := range counts {
		bins[(v-start)/width] += k
		total += k
	}
	top := slices.Max(bins)
	step, ymax := niceScale(top)
	for t := 0; t <= ymax; t += step {
		y := c.PlotY + c.PlotH - float64(t)/float64(ymax)*c.PlotH
		c.Ticks = append(c.Ticks, tickView{Y: y, LX: c.PlotX - 6, Label: strconv.Itoa(t)})
	}
	slot := c.PlotW / float64(n)
	bw := slot * 0.78
	for i, k := range bins {
		from := start + i*width
		label := strconv.Itoa(from)
		if width > 1 {
			label = fmt.Sprintf("%d–%d", from, from+width-1)
		}
		h := float64(k) / float64(ymax) * c.PlotH
		x := c.PlotX + float64(i)*slot + (slot-bw)/2
		y := c.PlotY + c.PlotH - h
		b := barView{X: x, Y: y, W: bw, H: h, Label: label, LX: x + bw/2, LY: c.PlotY + c.PlotH + 16,
			VX: x + bw/2, VY: y - 4, Tip: fmt.Sprintf("%s: %s (%.1f%%)", label, plural(k, unit), 100*float64(k)/float64(total))}
		if k > 0 {
			b.Value = strconv.Itoa(k)
		}
		c.Bars = append(c.Bars, b)
	}
	c.Caption = plural(total, unit)
	return c
}

// hbarItem is one row of a horizontal bar chart.
type hbarItem struct {
	label string
	value float64
	text  string
}

// Layout of a horizontal bar chart. Labels are sized at labelChar units
// a character, a generous width for 11px sans-serif lower case and
// underscores, so a rule's name (rule:from_customer:default_address_from_customer)
// fits left of its bar instead of running off the chart.
const (
	hbarRow    = 24
	hbarLabels = 170
	hbarValues = 120
	labelChar  = 6.4
)

// hbars charts named values as horizontal bars on a scale from 0 to
// full; long names fit better on rows than under columns.
func hbars(id, title, caption string, items []hbarItem, full float64) *chart {
	labels := float64(hbarLabels)
	for _, it := range items {
		labels = math.Max(labels, math.Ceil(float64(utf8.RuneCountInString(it.label))*labelChar)+12)
	}
	c := &chart{ID: id, Title: title, Caption: caption, Width: chartW, Horizontal: true,
		PlotX: labels, PlotY: 8, PlotW: chartW - hbarLabels - hbarValues}
	c.Width = int(math.Ceil(labels + c.PlotW + hbarValues))
	c.Wide = c.Width > chartW
	c.PlotH = float64(len(items) * hbarRow)
	c.Height = int(c.PlotH) + 16
	if len(items) == 0 {
		c.Caption = "no data"
		c.Height = 40
		return c
	}
	for i, it := range items {
		w := 0.0
		if full > 0 {
			w = math.Max(0, math.Min(1, it.value/full)) * c.PlotW
		}
		y := c.PlotY + float64(i*hbarRow) + 4
		h := float64(hbarRow - 8)
		c.Bars = append(c.Bars, barView{X: c.PlotX, Y: y, W: w, H: h, Label: it.label, LX: c.PlotX - 8, LY: y + h/2 + 4,
			Value: it.text, VX: c.PlotX + w + 6, VY: y + h/2 + 4, Tip: it.label + ": " + it.text})
	}
	return c
}

// bucketWidth is the smallest round width (1, 2, 5, 10, 20, 50, ...)
// that fits span values into at most maxBars bars.
func bucketWidth(span, maxBars int) int {
	maxBars = max(maxBars, 1)
	for mag := 1; ; mag *= 10 {
		for _, m := range []int{1, 2, 5} {
			w := m * mag
			// Aligning the first bar to a multiple of w can cost one bar.
			need := (span+w-1)/w + 1
			if w == 1 {
				need = span
			}
			if need <= maxBars || w >= span {
				return w
			}
		}
		if mag > math.MaxInt/100 {
			return span
		}
	}
}

// niceScale picks a round tick step for counts up to top, and the axis
// maximum, a multiple of the step at or above top.
func niceScale(top int) (step, ymax int) {
	if top <= 0 {
		return 1, 1
	}
	raw := float64(top) / 4
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = int(mag)
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = int(m * mag)
			break
		}
	}
	step = max(step, 1)
	ymax = (top + step - 1) / step * step
	return step, ymax
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
