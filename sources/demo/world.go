package demo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// FirstYear is the year of period 0 (its first quarter).
const FirstYear = 2024

// PeriodLabel names a period the way the reports do: "Q3 2025".
func PeriodLabel(period int) string {
	y, q := yearQuarter(period)
	return fmt.Sprintf("Q%d %d", q, y)
}

// yearQuarter maps a period to its year and quarter (1–4); negative periods
// are the quarters before FirstYear.
func yearQuarter(period int) (year, quarter int) {
	y := period / 4
	if period < 0 && period%4 != 0 {
		y--
	}
	return FirstYear + y, period - 4*y + 1
}

// PeriodEnd is the last day of the period's quarter, the reports' publication
// date.
func PeriodEnd(period int) time.Time {
	y, q := yearQuarter(period)
	return time.Date(y, time.Month(3*q)+1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
}

// industry decides which operational facts a company reports.
type industry int

const (
	retail industry = iota
	banking
	energy
	logistics
	pharma
	automotive
)

type company struct {
	name     string
	slug     string
	industry industry
	revenue  []float64 // dollars per quarter, one entry per period so far
	margin   float64   // operating margin, percent
	staff    int
	ceo, cfo string
	units    int     // stores, branches, wind farms, warehouses, sites, plants
	volume   float64 // industry-specific quarterly volume
	loans    float64 // banking: loan book, dollars
}

type country struct {
	name, slug, adjective string
	inflation             []float64 // percent, one per period
	unemployment          float64
	growth                float64 // quarter-on-quarter GDP growth, percent
	policyRate            float64 // percent, a multiple of 0.25
	prevRate              float64 // last period's policy rate
	exports               float64 // dollars per quarter
}

type program struct {
	name, slug string
	housing    bool // a housing program; otherwise a skills program
	director   string
	budget     float64 // dollars per quarter
}

// world is the simulated state the reports describe. It advances one period
// at a time; each period draws from its own generator seeded by (seed,
// period), so a period's draws do not depend on how many earlier periods
// drew.
type world struct {
	seed      int64
	period    int // the period the state describes; -1 before the first step
	rng       *rand.Rand
	companies []*company
	countries []*country
	programs  []*program
}

func newWorld(seed int64) *world {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	w := &world{seed: seed, period: -1}
	for _, c := range []struct {
		name, slug string
		ind        industry
		rev        float64
		staff      int
		units      int
	}{
		{"Acme Corp", "acme-corp", retail, 3.8e9, 11800, 1080},
		{"Northwind Bank", "northwind-bank", banking, 2.1e9, 9400, 310},
		{"Helios Energy", "helios-energy", energy, 1.6e9, 4200, 21},
		{"Bluepeak Logistics", "bluepeak-logistics", logistics, 1.2e9, 15300, 64},
		{"Orion Pharmaceuticals", "orion-pharmaceuticals", pharma, 2.7e9, 7600, 12},
		{"Crestline Motors", "crestline-motors", automotive, 5.4e9, 26800, 5},
	} {
		w.companies = append(w.companies, &company{
			name: c.name, slug: c.slug, industry: c.ind,
			revenue: []float64{c.rev * (0.9 + 0.2*r.Float64())},
			margin:  6 + 10*r.Float64(), staff: c.staff, units: c.units,
			ceo: person(r), cfo: person(r),
			volume: 1 + r.Float64(), loans: 40e9 + 20e9*r.Float64(),
		})
	}
	for _, c := range []struct{ name, slug, adj string }{
		{"Valdoria", "valdoria", "Valdorian"}, {"Estoria", "estoria", "Estorian"}, {"Marovia", "marovia", "Marovian"},
	} {
		w.countries = append(w.countries, &country{
			name: c.name, slug: c.slug, adjective: c.adj,
			inflation:    []float64{2 + 4*r.Float64()},
			unemployment: 4 + 5*r.Float64(), growth: 0.5 * r.Float64(),
			policyRate: 2 + 0.25*float64(r.IntN(12)), exports: 8e9 + 20e9*r.Float64(),
		})
	}
	w.programs = []*program{
		{name: "Riverside Housing Program", slug: "riverside-housing-program", housing: true, director: person(r), budget: 10e6 + 6e6*r.Float64()},
		{name: "Northern Skills Initiative", slug: "northern-skills-initiative", director: person(r), budget: 4e6 + 3e6*r.Float64()},
	}
	return w
}

// step moves the world to the next period. Period 0's state is the initial
// draw perturbed once, like every later period.
func (w *world) step() {
	w.period++
	w.rng = rand.New(rand.NewPCG(uint64(w.seed), uint64(w.period)+1))
	r := w.rng
	for _, c := range w.companies {
		last := c.revenue[len(c.revenue)-1]
		if w.period > 0 {
			c.revenue = append(c.revenue, last*(1+0.01+0.04*r.NormFloat64()))
		} else {
			c.revenue[0] = last * (1 + 0.02*r.NormFloat64())
		}
		c.margin = clamp(c.margin+0.8*r.NormFloat64(), 1, 30)
		c.staff = int(float64(c.staff) * (1 + 0.015 + 0.03*r.NormFloat64()))
		c.volume *= 1 + 0.02 + 0.05*r.NormFloat64()
		c.loans *= 1 + 0.01 + 0.02*r.NormFloat64()
	}
	for _, c := range w.countries {
		last := c.inflation[len(c.inflation)-1]
		next := clamp(last+0.4*r.NormFloat64(), -1, 15)
		if w.period > 0 {
			c.inflation = append(c.inflation, next)
		} else {
			c.inflation[0] = next
		}
		c.unemployment = clamp(c.unemployment+0.3*r.NormFloat64(), 2, 20)
		c.growth = clamp(0.4*c.growth+0.3+0.5*r.NormFloat64(), -3, 3)
		c.prevRate = c.policyRate
		c.policyRate = clamp(c.policyRate+0.25*math.Round(0.6*r.NormFloat64()), 0, 12)
		c.exports *= 1 + 0.01 + 0.04*r.NormFloat64()
	}
	for _, p := range w.programs {
		p.budget *= 1 + 0.02 + 0.05*r.NormFloat64()
	}
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

var firstNames = []string{"Maria", "James", "Priya", "Tomasz", "Aiko", "Samuel", "Elena", "David",
	"Fatima", "Lucas", "Grace", "Mateo", "Hannah", "Omar", "Sofia", "Daniel", "Ingrid", "Kwame",
	"Laura", "Ravi", "Chloe", "Andrei", "Nadia", "Victor", "Yuki", "Isabel", "Marcus", "Leila"}

var lastNames = []string{"Lopez", "Carter", "Shah", "Novak", "Tanaka", "Okafor", "Petrov", "Nguyen",
	"Haddad", "Silva", "Mensah", "Fischer", "Moreau", "Kowalski", "Reyes", "Bennett", "Lindqvist",
	"Adeyemi", "Romano", "Iyer", "Dubois", "Costa", "Brennan", "Sato", "Vargas", "Keller", "Osei"}

func person(r *rand.Rand) string {
	return firstNames[r.IntN(len(firstNames))] + " " + lastNames[r.IntN(len(lastNames))]
}

var targetFirst = []string{"Blue River", "Silverline", "Redwood", "Summit", "Harbor", "Granite",
	"Evergreen", "Lakeshore", "Copperfield", "Brightwater", "Ironbridge", "Maple Ridge"}

var targetLast = map[industry][]string{
	retail:     {"Foods", "Outfitters", "Home Goods", "Markets"},
	banking:    {"Capital", "Savings Bank", "Credit Union", "Payments"},
	energy:     {"Solar", "Wind Partners", "Grid Services", "Renewables"},
	logistics:  {"Freight", "Couriers", "Cold Chain", "Shipping"},
	pharma:     {"Biologics", "Therapeutics", "Diagnostics", "Labs"},
	automotive: {"Batteries", "Components", "Mobility", "Drivetrains"},
}

func target(r *rand.Rand, ind industry) string {
	l := targetLast[ind]
	return targetFirst[r.IntN(len(targetFirst))] + " " + l[r.IntN(len(l))]
}
