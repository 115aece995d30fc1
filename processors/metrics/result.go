package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// QueryFunc runs one read-only query and returns its output in format
// (the engine's Query, or a remote server's).
type QueryFunc func(ctx context.Context, sql, format string) ([]byte, error)

// Score is a figure on [0, 1] (or a count ratio), rounded to six places in
// JSON, or null there when it is NaN: nothing to average.
type Score float64

// NaN is the score of nothing.
var NaN = Score(math.NaN())

// MarshalJSON writes null for NaN and infinities.
func (s Score) MarshalJSON() ([]byte, error) {
	f := float64(s)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(math.Round(f*1e6)/1e6, 'f', -1, 64)), nil
}

// UnmarshalJSON reads what MarshalJSON wrote (null as NaN).
func (s *Score) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = NaN
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*s = Score(f)
	return err
}

// Text is the score with three decimals, or "—".
func (s Score) Text() string {
	if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
		return "—"
	}
	return fmt.Sprintf("%.3f", float64(s))
}

// CI is a 95% confidence interval [lo, hi]; null in JSON when it cannot be
// estimated (fewer than two units).
type CI [2]Score

// MarshalJSON writes [lo, hi] or null.
func (c CI) MarshalJSON() ([]byte, error) {
	if !c.Known() {
		return []byte("null"), nil
	}
	lo, _ := c[0].MarshalJSON()
	hi, _ := c[1].MarshalJSON()
	return []byte("[" + string(lo) + "," + string(hi) + "]"), nil
}

// UnmarshalJSON reads [lo, hi] or null.
func (c *CI) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*c = CI{NaN, NaN}
		return nil
	}
	var v [2]Score
	err := json.Unmarshal(b, &v)
	*c = CI(v)
	return err
}

// Known says whether both bounds are numbers.
func (c CI) Known() bool {
	for _, s := range c {
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
			return false
		}
	}
	return true
}

// Row is one result row by column name.
type Row map[string]string

// Score is the named column as a score (NaN when absent or not a number).
func (r Row) Score(col string) Score {
	f, err := strconv.ParseFloat(r[col], 64)
	if err != nil {
		return NaN
	}
	return Score(f)
}

// Count is the named column as an integer (0 when absent).
func (r Row) Count(col string) int64 {
	n, err := strconv.ParseInt(r[col], 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(r[col], 64)
		if ferr != nil {
			return 0
		}
		return int64(f)
	}
	return n
}

// CI is the interval of score x (columns x_ci_lo, x_ci_hi).
func (r Row) CI(x string) CI { return CI{r.Score(x + "_ci_lo"), r.Score(x + "_ci_hi")} }

// Rows runs sql and returns its rows by column name.
func Rows(ctx context.Context, q QueryFunc, sql string) ([]Row, error) {
	out, err := q(ctx, sql, "TabSeparatedWithNames")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return nil, nil
	}
	names := strings.Split(lines[0], "\t")
	var rows []Row
	for _, line := range lines[1:] {
		if line == "" {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != len(names) {
			return nil, fmt.Errorf("metrics: row %q has %d columns, the header %d", line, len(c), len(names))
		}
		r := make(Row, len(c))
		for i, n := range names {
			r[n] = unescapeTSV(c[i])
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// unescapeTSV undoes TabSeparated's escapes.
func unescapeTSV(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\'`, "'", `\N`, "").Replace(s)
}
