package question

import (
	"fmt"
	"testing"
	"time"
)

func TestSingle(t *testing.T) {
	f := func(head, relation, tail, sentence, want string) {
		t.Helper()
		got, ok := Single(head, relation, tail, sentence, time.Time{})
		if want == "" {
			if ok {
				t.Errorf("Single(%q, %q, %q) = %q, want none", head, relation, tail, got)
			}
			return
		}
		if !ok || got != want {
			t.Errorf("Single(%q, %q, %q) = %q, %v\nwant %q", head, relation, tail, got, ok, want)
		}
	}
	// Copulas: the head is dated already, so no anchor is added.
	f("Acme Corp's revenue in Q3 2026", "was", "$4.2 billion", "Acme Corp's revenue in Q3 2026 was $4.2 billion.",
		"What was Acme Corp's revenue in Q3 2026?")
	f("Inflation in Valdoria", "was", "2.5%", "Inflation in Valdoria was 2.5% in Q3 2025, up from 2.4% in Q2 2025.",
		"What was inflation in Valdoria in Q3 2025?")
	f("Acme Corp's chief executive", "is", "Jane Doe", "Acme Corp's chief executive is Jane Doe.",
		"Who is Acme Corp's chief executive?")
	f("Valdoria's exports", "remained", "$9 billion", "Valdoria's exports remained $9 billion in 2025.",
		"What was Valdoria's exports in 2025?")
	f("The policy rate of the Central Bank of Valdoria", "stood at", "2.94%",
		"The policy rate of the Central Bank of Valdoria stood at 2.94% at the end of Q3 2025.",
		"What was the policy rate of the Central Bank of Valdoria at the end of Q3 2025?")
	// "What does RAID0 have?" asks for anything it has: not asked.
	f("RAID0", "has", "zero redundancy", "RAID0 has zero redundancy.", "")
	// Measures keep their particle.
	f("Inflation in Valdoria", "rose to", "4.1%", "Inflation in Valdoria rose sharply to 4.1% in June 2025.",
		"What did inflation in Valdoria rise to in June 2025?")
	f("Northwind Bank's loan book", "reached", "$46.55 billion", "Northwind Bank's loan book reached $46.55 billion at the end of Q3 2025.",
		"What did Northwind Bank's loan book reach at the end of Q3 2025?")
	// Transitive past, regular and irregular.
	f("Acme Corp", "acquired", "Blue River Foods", "Acme Corp acquired Blue River Foods for $310 million in Q3 2025.",
		"What did Acme Corp acquire in Q3 2025?")
	f("Acme Corp", "sold", "its bakery unit", "Acme Corp sold its bakery unit.", "What did Acme Corp sell?")
	f("Acme Corp", "bought", "Summit Foods", "Acme Corp bought Summit Foods.", "What did Acme Corp buy?")
	f("Orion Pharmaceuticals", "won", "FDA approval", "Orion Pharmaceuticals won FDA approval.", "What did Orion Pharmaceuticals win?")
	f("The Riverside Housing Program", "allocated", "$14.6 million", "The Riverside Housing Program allocated $14.6 million to affordable housing in Q3 2025.",
		"What did the Riverside Housing Program allocate in Q3 2025?")
	// Counts.
	f("Acme Corp", "opened", "12 new stores", "Acme Corp opened 12 new stores in Q3 2025, bringing its total to 1,164.",
		"How many new stores did Acme Corp open in Q3 2025?")
	f("Acme Corp", "employed", "12,171 people", "Acme Corp employed 12,171 people at the end of Q3 2025.",
		"How many people did Acme Corp employ at the end of Q3 2025?")
	f("Bluepeak Logistics", "delivered", "158 million parcels", "Bluepeak Logistics delivered 158 million parcels in Q3 2025.",
		"What did Bluepeak Logistics deliver in Q3 2025?")
	// Present third person.
	f("Crestline Motors", "produces", "5 electric models", "Crestline Motors produces 5 electric models.",
		"How many electric models does Crestline Motors produce?")
	f("Helios Energy", "launches", "a solar fund", "Helios Energy launches a solar fund.", "What does Helios Energy launch?")
	// People.
	f("Northwind Bank", "appointed", "Maria Lopez", "Northwind Bank appointed Maria Lopez as chief financial officer.",
		"Whom did Northwind Bank appoint as chief financial officer?")
	f("Helios Energy", "appointed", "Laura Sato", "In Q3 2025, Helios Energy appointed Laura Sato as chief financial officer, replacing Maria Dubois.",
		"Whom did Helios Energy appoint as chief financial officer in Q3 2025?")
	f("Acme Corp", "hired", "Tom Lee", "Acme Corp hired Tom Lee.", "Whom did Acme Corp hire?")
	f("The Northern Skills Initiative", "named", "Leila Fischer", "The Northern Skills Initiative named Leila Fischer as its new director in Q2 2024.",
		"Whom did the Northern Skills Initiative name as its new director in Q2 2024?")
	f("Acme Corp", "appointed", "Blue River Capital", "Acme Corp appointed Blue River Capital as adviser.",
		"What did Acme Corp appoint?") // an organisation, not a person
	// Refusals: unknown verb shapes, empty parts, answer inside the question.
	f("Acme Corp", "go", "home", "Acme Corp go home.", "")
	f("", "was", "1", "x", "")
	f("Acme Corp's 2025 revenue", "was", "2025 revenue", "Acme Corp's 2025 revenue was 2025 revenue.", "")
}

func TestSingleAnchorsToPublication(t *testing.T) {
	sept := time.Date(2024, 9, 30, 0, 0, 0, 0, time.UTC)
	f := func(head, relation, tail, sentence, want string) {
		t.Helper()
		if got, ok := Single(head, relation, tail, sentence, sept); !ok || got != want {
			t.Errorf("Single(%q, %q, %q) = %q, %v; want %q", head, relation, tail, got, ok, want)
		}
	}
	f("Acme Corp", "closed", "7 underperforming stores", "Acme Corp closed 7 underperforming stores.",
		"How many underperforming stores did Acme Corp close, as reported in September 2024?")
	f("Helios Energy", "operates", "24 wind farms", "Helios Energy operates 24 wind farms.",
		"How many wind farms does Helios Energy operate as of September 2024?")
	// The sentence's own time wins over the publication date.
	f("Acme Corp", "opened", "12 new stores", "Acme Corp opened 12 new stores in Q2 2024.",
		"How many new stores did Acme Corp open in Q2 2024?")
}

func TestLemmas(t *testing.T) {
	f := func(rel, want string, past bool) {
		t.Helper()
		v, ok := parseRelation(rel)
		if !ok || v.lemma != want || v.past != past {
			t.Errorf("parseRelation(%q) = %+v, %v; want lemma %q past %v", rel, v, ok, want, past)
		}
	}
	for rel, lemma := range map[string]string{"acquired": "acquire", "hired": "hire", "opened": "open",
		"produced": "produce", "allocated": "allocate", "completed": "complete", "launched": "launch",
		"shipped": "ship", "totaled": "total", "totalled": "total", "carried": "carry", "named": "name",
		"raised": "raise", "received": "receive", "issued": "issue", "distributed": "distribute",
		"employed": "employ", "reported": "report", "delivered": "deliver", "sold": "sell", "bought": "buy",
		"won": "win", "rose to": "rise to", "fell to": "fall to", "merged with": "merge with",
		"secured": "secure", "declined to": "decline to", "eased to": "ease to", "managed": "manage",
		"changed": "change", "arranged": "arrange", "challenged": "challenge", "plunged": "plunge", "banged": "bang", "belonged": "belong",
		"shared": "share", "declared": "declare", "compared": "compare", "cleared": "clear", "stored": "store", "ignored": "ignore",
		"explored": "explore", "colored": "color", "monitored": "monitor", "authored": "author", "anchored": "anchor", "honored": "honor",
		"controlled": "control", "cancelled": "cancel", "labelled": "label", "spelled": "spell", "scrolled": "scroll", "installed": "install", "called": "call",
		"sponsored": "sponsor", "mirrored": "mirror", "vectored": "vector", "restored": "restore", "scored": "score"} {
		f(rel, lemma, true)
	}
	for rel, lemma := range map[string]string{"produces": "produce", "launches": "launch", "owns": "own",
		"operates": "operate", "carries": "carry", "has": "have", "manufactures": "manufacture"} {
		f(rel, lemma, false)
	}
}

func ExampleSingle() {
	q, _ := Single("Northwind Bank", "appointed", "Maria Lopez",
		"In Q3 2025, Northwind Bank appointed Maria Lopez as chief financial officer.", time.Time{})
	fmt.Println(q)
	q, _ = Single("Acme Corp's revenue in Q3 2025", "was", "$4.2 billion",
		"Acme Corp's revenue in Q3 2025 was $4.2 billion, up 8% from Q3 2024.", time.Time{})
	fmt.Println(q)
	// Present tense and no date in the sentence: the report date anchors it.
	q, _ = Single("Helios Energy", "operates", "24 wind farms", "Helios Energy operates 24 wind farms.",
		time.Date(2025, 9, 30, 0, 0, 0, 0, time.UTC))
	fmt.Println(q)
	// Output:
	// Whom did Northwind Bank appoint as chief financial officer in Q3 2025?
	// What was Acme Corp's revenue in Q3 2025?
	// How many wind farms does Helios Energy operate as of September 2025?
}
