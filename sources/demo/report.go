package demo

import (
	"fmt"
	"math"
	"strings"
)

// report is one rendered document before it becomes a DocumentVersion.
type report struct {
	uri, domain, title, text string
}

// render writes this period's reports. It draws from the period's generator
// in a fixed order, so it must run exactly once per step.
func (w *world) render() []report {
	var out []report
	for _, c := range w.companies {
		out = append(out, w.companyReport(c))
	}
	for _, c := range w.countries {
		out = append(out, w.countryReport(c))
	}
	for _, p := range w.programs {
		out = append(out, w.programReport(p))
	}
	return out
}

func (w *world) chance(p float64) bool { return w.rng.Float64() < p }

func (w *world) pick(options ...string) string { return options[w.rng.IntN(len(options))] }

func newReport(domain, slug string, period int, title string, paras []string) report {
	y, q := yearQuarter(period)
	return report{
		uri:    fmt.Sprintf("demo://%s/%s/%d-q%d", domain, slug, y, q),
		domain: domain,
		title:  title,
		text:   "# " + title + "\n\n" + strings.Join(paras, "\n\n") + "\n",
	}
}

func (w *world) companyReport(c *company) report {
	p, q := w.period, PeriodLabel(w.period)
	rev := c.revenue[len(c.revenue)-1]
	var paras []string

	// Results: the plain statements RARE-Get turns into single-hop facts.
	var s []string
	if w.chance(0.85) {
		s = append(s, fmt.Sprintf("%s revenue in %s was %s%s.", poss(c.name), q, money(rev), change(c.revenue, 4, PeriodLabel(p-4))))
	} else {
		s = append(s, fmt.Sprintf("In %s, %s reported revenue of %s.", q, c.name, money(rev)))
	}
	s = append(s, fmt.Sprintf("%s operating margin in %s was %.1f%%.", poss(c.name), q, c.margin))
	s = append(s, fmt.Sprintf("%s employed %s people at the end of %s.", c.name, count(c.staff), q))
	if w.chance(0.4) {
		s = append(s, fmt.Sprintf("Analysts had expected revenue of %s.", money(rev*(0.96+0.06*w.rng.Float64()))))
	}
	paras = append(paras, strings.Join(s, " "))

	paras = append(paras, w.operations(c, q))

	// Events: appointments, acquisitions, hiring.
	s = nil
	if w.chance(0.35) {
		role, old := "chief financial officer", &c.cfo
		if w.chance(0.4) {
			role, old = "chief executive officer", &c.ceo
		}
		who := person(w.rng)
		switch w.rng.IntN(3) {
		case 0:
			s = append(s, fmt.Sprintf("%s appointed %s as %s in %s.", c.name, who, role, q))
		case 1:
			s = append(s, fmt.Sprintf("In %s, %s appointed %s as %s, replacing %s.", q, c.name, who, role, *old))
		default:
			s = append(s, fmt.Sprintf("%s, previously at %s, was named %s of %s.", who, target(w.rng, c.industry), role, c.name))
		}
		*old = who
	}
	if w.chance(0.3) {
		t := target(w.rng, c.industry)
		price := money(50e6 + 900e6*w.rng.Float64())
		if w.chance(0.75) {
			s = append(s, fmt.Sprintf("%s acquired %s for %s in %s.", c.name, t, price, q))
		} else {
			s = append(s, fmt.Sprintf("%s agreed to buy %s, pending regulatory approval.", c.name, t))
		}
	}
	if w.chance(0.35) {
		s = append(s, fmt.Sprintf("%s hired %d %s in %s.", c.name, 50+w.rng.IntN(400),
			w.pick("engineers", "data scientists", "sales representatives", "technicians"), q))
	}
	if len(s) > 0 {
		paras = append(paras, strings.Join(s, " "))
	}

	// Commentary: reported speech and outlook, which carry no extractable
	// fact; they make the rule extractor's precision matter.
	paras = append(paras, w.pick(
		fmt.Sprintf("\"We delivered a solid quarter despite a difficult market,\" said chief executive %s.", c.ceo),
		fmt.Sprintf("Management attributed the result to stronger demand and lower input costs. %s expects revenue of about %s in %s.", c.name, money(rev*1.03), PeriodLabel(p+1)),
		"Looking ahead, the company will keep investing in its core markets. It did not change its full-year guidance.",
		fmt.Sprintf("Chief executive %s said the company remains focused on cost discipline, and the board kept the quarterly dividend unchanged.", c.ceo),
	))

	if w.chance(0.5) {
		prev := "n/a"
		if len(c.revenue) > 1 {
			prev = money(c.revenue[len(c.revenue)-2])
		}
		paras = append(paras,
			fmt.Sprintf("Table 1: %s key figures, %s", c.name, q),
			fmt.Sprintf("| Metric | %s | %s |\n|---|---|---|\n| Revenue | %s | %s |\n| Operating margin | %.1f%% | n/a |\n| Employees | %s | n/a |",
				q, PeriodLabel(p-1), money(rev), prev, c.margin, count(c.staff)),
			fmt.Sprintf("Source: %s quarterly report. Figures are unaudited.", c.name))
	}
	return newReport("finance", c.slug, p, fmt.Sprintf("%s quarterly results, %s", c.name, q), paras)
}

// operations writes the industry's operating facts.
func (w *world) operations(c *company, q string) string {
	var s []string
	switch c.industry {
	case retail:
		n := 3 + w.rng.IntN(20)
		c.units += n
		s = append(s, fmt.Sprintf("%s opened %d new stores in %s, bringing its total to %s.", c.name, n, q, count(c.units)))
		if w.chance(0.3) {
			m := 2 + w.rng.IntN(8)
			c.units -= m
			s = append(s, fmt.Sprintf("%s closed %d underperforming stores.", c.name, m))
		}
	case banking:
		s = append(s, fmt.Sprintf("%s net interest margin in %s was %.2f%%.", poss(c.name), q, 2.5+c.margin/20))
		s = append(s, fmt.Sprintf("%s loan book reached %s at the end of %s.", poss(c.name), money(c.loans), q))
		if w.chance(0.5) {
			n := 1 + w.rng.IntN(9)
			c.units += n
			s = append(s, fmt.Sprintf("%s opened %d new branches in %s.", c.name, n, q))
		}
	case energy:
		s = append(s, fmt.Sprintf("%s generated %.1f terawatt hours of electricity in %s.", c.name, 8*c.volume, q))
		if w.chance(0.4) {
			n := 1 + w.rng.IntN(3)
			c.units += n
			s = append(s, fmt.Sprintf("%s completed %d new wind farms in %s.", c.name, n, q))
		}
		s = append(s, fmt.Sprintf("%s operates %d wind farms.", c.name, c.units))
	case logistics:
		s = append(s, fmt.Sprintf("%s delivered %d million parcels in %s.", c.name, int(120*c.volume), q))
		if w.chance(0.5) {
			n := 1 + w.rng.IntN(5)
			c.units += n
			s = append(s, fmt.Sprintf("%s opened %d new warehouses in %s.", c.name, n, q))
		}
	case pharma:
		s = append(s, fmt.Sprintf("%s research spending in %s was %s.", poss(c.name), q, money(0.18*c.revenue[len(c.revenue)-1])))
		if w.chance(0.4) {
			s = append(s, fmt.Sprintf("%s launched %s, a treatment for %s, in %s.", c.name, drug(w), w.pick("migraine", "asthma", "psoriasis", "type 2 diabetes", "hypertension"), q))
		}
	case automotive:
		s = append(s, fmt.Sprintf("%s delivered %s vehicles in %s.", c.name, count(int(60000*c.volume)), q))
		s = append(s, fmt.Sprintf("%s produces %d electric models.", c.name, 3+w.period/3))
	}
	return strings.Join(s, " ")
}

func drug(w *world) string {
	return w.pick("Zen", "Vel", "Cor", "Lum", "Ari", "Tor", "Nex") + w.pick("trava", "omab", "idex", "ira", "oxan", "umin")
}

func (w *world) countryReport(c *country) report {
	p, q := w.period, PeriodLabel(w.period)
	infl := c.inflation[len(c.inflation)-1]
	var paras []string
	s := []string{fmt.Sprintf("Inflation in %s was %.1f%% in %s%s.", c.name, infl, q, rateChange(c.inflation, PeriodLabel(p-1)))}
	s = append(s, fmt.Sprintf("%s unemployment rate in %s was %.1f%%.", poss(c.name), q, c.unemployment))
	s = append(s, fmt.Sprintf("%s quarterly GDP growth in %s was %.1f%%.", poss(c.name), q, c.growth))
	paras = append(paras, strings.Join(s, " "))

	s = []string{fmt.Sprintf("The policy rate of the Central Bank of %s stood at %.2f%% at the end of %s.", c.name, c.policyRate, q)}
	if bp := int(math.Round(100 * (c.policyRate - c.prevRate))); bp != 0 && w.period > 0 {
		verb := "raised"
		if bp < 0 {
			verb, bp = "cut", -bp
		}
		s = append(s, fmt.Sprintf("The Central Bank of %s %s its policy rate by %d basis points.", c.name, verb, bp))
	}
	s = append(s, fmt.Sprintf("%s exports in %s totaled %s.", poss(c.name), q, money(c.exports)))
	paras = append(paras, strings.Join(s, " "))

	paras = append(paras, w.pick(
		"The statistics office said consumer spending remained resilient.",
		"Economists expect price pressures to ease next year as energy costs fall.",
		fmt.Sprintf("According to the finance ministry, the %s economy is on track for a soft landing.", c.adjective),
		fmt.Sprintf("There was no change to the %s budget outlook.", c.adjective),
	))
	if w.chance(0.5) {
		paras = append(paras,
			fmt.Sprintf("Table 1: %s key indicators, %s", c.name, q),
			fmt.Sprintf("| Indicator | %s |\n|---|---|\n| Inflation | %.1f%% |\n| Unemployment | %.1f%% |\n| Policy rate | %.2f%% |",
				q, infl, c.unemployment, c.policyRate),
			"Source: national statistics office; central bank.")
	}
	return newReport("economy", c.slug, p, fmt.Sprintf("%s economic indicators, %s", c.name, q), paras)
}

func (w *world) programReport(pr *program) report {
	p, q := w.period, PeriodLabel(w.period)
	var s []string
	if pr.housing {
		s = append(s, fmt.Sprintf("The %s allocated %s to affordable housing in %s.", pr.name, money(pr.budget), q))
		s = append(s, fmt.Sprintf("The %s completed %d affordable housing units in %s.", pr.name, 40+w.rng.IntN(120), q))
		s = append(s, fmt.Sprintf("The %s assisted %s households in %s.", pr.name, count(800+w.rng.IntN(900)), q))
	} else {
		s = append(s, fmt.Sprintf("The %s trained %s workers in %s.", pr.name, count(1500+w.rng.IntN(1500)), q))
		s = append(s, fmt.Sprintf("The %s awarded %d apprenticeship grants in %s.", pr.name, 80+w.rng.IntN(150), q))
		s = append(s, fmt.Sprintf("The %s job placement rate in %s was %.1f%%.", poss(pr.name), q, 55+30*w.rng.Float64()))
	}
	paras := []string{strings.Join(s, " ")}
	if w.chance(0.15) {
		pr.director = person(w.rng)
		paras = append(paras, fmt.Sprintf("The %s named %s as its new director in %s.", pr.name, pr.director, q))
	}
	paras = append(paras, w.pick(
		fmt.Sprintf("Program director %s said demand remained well above available funding.", pr.director),
		"Funding for the next quarter was approved by the oversight board.",
		"Most participants were referred by local partner organizations.",
	))
	return newReport("policy", pr.slug, p, fmt.Sprintf("%s quarterly report, %s", pr.name, q), paras)
}

// change describes the year-on-year move of the last value, once a year of
// history exists: ", up 8.1% from Q3 2024".
func change(xs []float64, lag int, prev string) string {
	if len(xs) <= lag {
		return ""
	}
	a, b := xs[len(xs)-1-lag], xs[len(xs)-1]
	d := 100 * (b - a) / a
	dir := "up"
	if d < 0 {
		dir = "down"
	}
	return fmt.Sprintf(", %s %.1f%% from %s", dir, math.Abs(d), prev)
}

// rateChange compares a rate with the previous period's: ", down from 3.9%
// in Q2 2025".
func rateChange(xs []float64, prev string) string {
	if len(xs) < 2 {
		return ""
	}
	a, b := xs[len(xs)-2], xs[len(xs)-1]
	fa, fb := fmt.Sprintf("%.1f%%", a), fmt.Sprintf("%.1f%%", b)
	switch {
	case fa == fb:
		return ", unchanged from " + prev
	case b < a:
		return fmt.Sprintf(", down from %s in %s", fa, prev)
	}
	return fmt.Sprintf(", up from %s in %s", fa, prev)
}

// money formats dollars as reports do: "$4.21 billion", "$310.5 million".
func money(x float64) string {
	switch {
	case x >= 1e9:
		return fmt.Sprintf("$%.2f billion", x/1e9)
	case x >= 1e6:
		return fmt.Sprintf("$%.1f million", x/1e6)
	}
	return "$" + count(int(x))
}

// count formats an integer with thousands separators: 12,400.
func count(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + count(-n)
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// poss writes the possessive of a name: "Acme Corp's", "Crestline Motors'".
func poss(name string) string {
	if strings.HasSuffix(name, "s") {
		return name + "'"
	}
	return name + "'s"
}
