package triplet

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// has reports whether ts holds the triple (head | relation | tail) of kind.
func has(ts []Triple, head, relation, tail, kind string) bool {
	for _, x := range ts {
		if x.Head == head && x.Relation == relation && x.Tail == tail && (kind == "" || x.Kind == kind) {
			return true
		}
	}
	return false
}

func show(ts []Triple) string {
	var b strings.Builder
	for _, x := range ts {
		fmt.Fprintf(&b, "\n  (%s | %s | %s) [%s]", x.Head, x.Relation, x.Tail, x.Kind)
	}
	return b.String()
}

func TestExtract(t *testing.T) {
	// Each sentence with one triple it must yield (others may come with
	// it); head "" means the extractor must stay silent.
	for _, tc := range []struct{ sentence, head, relation, tail, kind string }{
		// Subject–verb–object, the demo feed's plain statements.
		{"Acme Corp's revenue in Q3 2025 was $4.2 billion.", "Acme Corp's revenue in Q3 2025", "was", "$4.2 billion", KindCopula},
		{"Acme Corp's revenue in Q3 2025 was $4.57 billion, up 18.3% from Q3 2024.", "Acme Corp's revenue in Q3 2025", "was", "$4.57 billion", KindCopula},
		{"Northwind Bank appointed Maria Lopez as chief financial officer.", "Northwind Bank", "appointed", "Maria Lopez", KindVerb},
		{"Northwind Bank appointed Maria Lopez as chief financial officer.", "Northwind Bank", "chief financial officer", "Maria Lopez", KindAttribute},
		{"In Q3 2025, Helios Energy appointed Laura Sato as chief financial officer, replacing Maria Dubois.", "Helios Energy", "appointed", "Laura Sato", KindVerb},
		{"Acme Corp opened 12 new stores in Q3 2025, bringing its total to 1,164.", "Acme Corp", "opened", "12 new stores", KindVerb},
		{"Acme Corp employed 12,171 people at the end of Q3 2025.", "Acme Corp", "employed", "12,171 people", KindVerb},
		{"Bluepeak Logistics acquired Evergreen Couriers for $693.9 million in Q3 2025.", "Bluepeak Logistics", "acquired", "Evergreen Couriers", KindVerb},
		{"Crestline Motors produces 5 electric models.", "Crestline Motors", "produces", "5 electric models", KindVerb},
		{"Inflation in Valdoria was 2.5% in Q3 2025, up from 2.5% in Q2 2025.", "Inflation in Valdoria", "was", "2.5%", KindCopula},
		{"The policy rate of the Central Bank of Valdoria stood at 2.94% at the end of Q3 2025.", "The policy rate of the Central Bank of Valdoria", "stood at", "2.94%", KindVerb},
		{"Valdoria's exports in Q3 2025 totaled $15.02 billion.", "Valdoria's exports in Q3 2025", "totaled", "$15.02 billion", KindVerb},
		{"Northwind Bank's loan book reached $46.55 billion at the end of Q3 2025.", "Northwind Bank's loan book", "reached", "$46.55 billion", KindVerb},
		{"The Riverside Housing Program allocated $14.6 million to affordable housing in Q3 2025.", "The Riverside Housing Program", "allocated", "$14.6 million", KindVerb},
		{"The Northern Skills Initiative named Leila Fischer as its new director in Q2 2024.", "The Northern Skills Initiative", "named", "Leila Fischer", KindVerb},
		{"Acme Corp, a regional retailer, hired 300 engineers.", "Acme Corp", "hired", "300 engineers", KindVerb},
		{"Acme Corp, which acquired Beta in 2023, opened 4 stores.", "Acme Corp", "opened", "4 stores", KindVerb},
		{"Dr. Jane Smith of Acme Inc. has appointed Tom Lee as CEO.", "Dr. Jane Smith of Acme Inc.", "appointed", "Tom Lee", KindVerb},
		{"Northwind Bank named Priya Shah chief executive officer.", "Northwind Bank", "named", "Priya Shah", KindVerb},
		{"Acme Corp opened 12 stores and closed 3 outlets.", "Acme Corp", "opened", "12 stores", KindVerb},
		{"Acme Corp opened 12 stores and closed 3 outlets.", "Acme Corp", "closed", "3 outlets", KindVerb},
		{"Helios Energy also acquired Summit Solar.", "Helios Energy", "acquired", "Summit Solar", KindVerb},
		{"In Q3 2025 Acme Corp opened 12 stores.", "Acme Corp", "opened", "12 stores", KindVerb},
		{"Solberg co-founded Northwind in 2014 together with Tor Haugen.", "Solberg", "co-founded in", "2014", KindVerb},
		// Passive with its agent, a founding date, a place.
		{"Acme Corp was acquired by Beta Inc. in 2024.", "Acme Corp", "was acquired by", "Beta Inc.", KindVerb},
		{"Kvarts Battery Systems was founded in 2019.", "Kvarts Battery Systems", "was founded in", "2019", KindVerb},
		{"Northwind Robotics is based in Trondheim.", "Northwind Robotics", "based in", "Trondheim", KindAttribute},
		// Phrasal and measure verbs, numbers with units, money, percentages.
		{"Inflation in Valdoria rose sharply to 4.1% in June.", "Inflation in Valdoria", "rose to", "4.1%", KindVerb},
		{"The U.S. economy grew to $28 trillion.", "The U.S. economy", "grew to", "$28 trillion", KindVerb},
		{"Northwind Robotics' revenue rose 18% to NOK 412 million in 2025.", "Northwind Robotics' revenue", "rose to", "NOK 412 million", KindVerb},
		{"Northwind Robotics' revenue rose 18% to NOK 412 million in 2025.", "Northwind Robotics' revenue", "rose by", "18%", KindVerb},
		{"Northwind Robotics employs 1,240 people.", "Northwind Robotics", "employs", "1,240 people", KindVerb},
		{"The PickMate 3 reaches a throughput of 620 items per hour.", "The PickMate 3", "throughput", "620 items per hour", KindAttribute},
		{"The PickMate 3 has a list price of EUR 48,000.", "The PickMate 3", "list price", "EUR 48,000", KindAttribute},
		{"Fjordline Logistics reported revenue of NOK 2.3 billion for 2025.", "Fjordline Logistics", "revenue", "NOK 2.3 billion", KindAttribute},
		{"In Q2 2025, Acme Corp reported revenue of $4.65 billion.", "Acme Corp", "revenue", "$4.65 billion", KindAttribute},
		{"On 14 March 2026 Fjordline ordered a further 340 robots for its Lonevåg centre.", "Fjordline", "ordered", "340 robots", KindVerb},
		// Dates.
		{"Northwind Robotics opened its new factory in Orkanger on 14 March 2026.", "Northwind Robotics", "opened on", "14 March 2026", KindVerb},
		{"The Bergen terminal of Fjordline Logistics opened on 8 September 2025.", "The Bergen terminal of Fjordline Logistics", "opened on", "8 September 2025", KindVerb},
		// Copulas: a role, an identity.
		{"Anna Berg is the chief executive of Northwind Robotics.", "Northwind Robotics", "chief executive", "Anna Berg", KindAttribute},
		{"Acme Corp's chief executive is Jane Doe.", "Acme Corp", "chief executive", "Jane Doe", KindAttribute},
		{"Lonevåg, in Osterøy municipality, is Fjordline's largest warehouse.", "Fjordline's largest warehouse", "is", "Lonevåg", KindCopula},
		{"Lonevåg, in Osterøy municipality, is Fjordline's largest warehouse.", "Lonevåg", "located in", "Osterøy municipality", KindAttribute},
		// Possessives and appositives.
		{"Northwind's chief executive, Anna Berg, said the order was the largest in its history.", "Northwind", "chief executive", "Anna Berg", KindAttribute},
		{"Northwind Robotics, based in Trondheim, makes warehouse picking robots.", "Northwind Robotics", "based in", "Trondheim", KindAttribute},
		{"Anna Berg, the CEO of Northwind, opened the plant.", "Northwind", "CEO", "Anna Berg", KindAttribute},
		{`"This order shows that the robots perform," said Ingrid Solberg, chief executive of Northwind Robotics.`, "Northwind Robotics", "chief executive", "Ingrid Solberg", KindAttribute},
		{"The order was signed by Ingrid Solberg, Northwind's chief executive.", "Northwind", "chief executive", "Ingrid Solberg", KindAttribute},
		// Debris: instructions, clause fragments, pronouns, negations,
		// modals, reported speech, vague subjects. Nothing is better than a
		// wrong fact.
		{"Fix performance issue in GIN index search startup.", "", "", "", ""},
		{"To fix this, create the index again or attached.", "", "", "", ""},
		{"To fix this create a new index, or attached.", "", "", "", ""},
		{"Add support for Unicode 15 in PostgreSQL 16.", "", "", "", ""},
		{"Improve performance of sorting in PostgreSQL 16.", "", "", "", ""},
		{"Fixes a crash when the file is empty.", "", "", "", ""},
		{"Allow pg_dump to dump 12 tables in parallel.", "", "", "", ""},
		{"chmod -R no longer exits with error status when encountering symlinks.", "", "", "", ""},
		{"GNU coreutils NEWS                                    -*- outline -*-", "", "", "", ""},
		{"The company's revenue was $4 billion.", "", "", "", ""},
		{"It did not change its full-year guidance.", "", "", "", ""},
		{"He succeeds Bente Aas, who retired after eleven years.", "", "", "", ""},
		{`"We delivered a solid quarter," said chief executive John Carter.`, "", "", "", ""},
		{"Chief executive John Smith said the results were encouraging.", "", "", "", ""},
		{"Acme Corp will open 5 stores in 2026.", "", "", "", ""},
		{"Acme Corp agreed to buy Silverline Markets, pending regulatory approval.", "", "", "", ""},
		{"The Central Bank of Marovia raised its policy rate by 25 basis points.", "", "", "", ""},
		{"Acme Corp expects revenue of about $4.79 billion in Q3 2025.", "", "", "", ""},
		{"Analysts had expected revenue of $3.94 billion.", "", "", "", ""},
		{"The statistics office said consumer spending remained resilient.", "", "", "", ""},
		{"There was no change to the Estorian budget outlook.", "", "", "", ""},
		{"Acme Corp did not open any stores.", "", "", "", ""},
		{"Did Acme Corp open 12 stores?", "", "", "", ""},
		{"Revenue was strong.", "", "", "", ""},
		{"Northwind Robotics had its strongest year.", "", "", "", ""},
	} {
		got := Extract(tc.sentence)
		for _, x := range got {
			if x.Sentence.Text != tc.sentence || !strings.Contains(x.Sentence.Text, x.Tail) {
				t.Errorf("%q: evidence not verbatim: %+v", tc.sentence, x)
			}
		}
		if tc.head == "" {
			if len(got) != 0 {
				t.Errorf("%q: want nothing, got%s", tc.sentence, show(got))
			}
			continue
		}
		if !has(got, tc.head, tc.relation, tc.tail, tc.kind) {
			t.Errorf("%q:\n want (%s | %s | %s) [%s]\n got%s", tc.sentence, tc.head, tc.relation, tc.tail, tc.kind, show(got))
		}
	}
}

// TestExtractChunk: sentences are read in their chunk, where "The company"
// and "Revenue" stand for the organisation named before, and a word
// capitalized inside a sentence is a name.
func TestExtractChunk(t *testing.T) {
	chunk := "Northwind Robotics, based in Trondheim, had its strongest year in 2025. " +
		"Revenue rose 18% to NOK 412 million. The company employs 286 people. " +
		"Vik took up the position on 5 January 2026. Vik joined from Hurtig Freight AS. " +
		"The Orkanger plant of Kvarts opened on 14 March 2026."
	got := Extract(chunk)
	for _, w := range [][4]string{
		{"Northwind Robotics", "based in", "Trondheim", KindAttribute},
		{"Northwind Robotics' revenue", "rose to", "NOK 412 million", KindVerb},
		{"Northwind Robotics' revenue", "rose by", "18%", KindVerb},
		{"Northwind Robotics", "employs", "286 people", KindVerb},
		{"Vik", "took up on", "5 January 2026", KindVerb},
		{"The Orkanger plant of Kvarts", "opened on", "14 March 2026", KindVerb},
	} {
		if !has(got, w[0], w[1], w[2], w[3]) {
			t.Errorf("want (%s | %s | %s) [%s]; got%s", w[0], w[1], w[2], w[3], show(got))
		}
	}
	for _, x := range got {
		if Verify(chunk, x.Sentence.Text, x.Tail) != nil {
			t.Errorf("not verbatim: %+v", x)
		}
	}
	// Without an organisation named before, "Revenue" stands for nothing.
	if got := Extract("Revenue rose 18% to NOK 412 million. The company employs 286 people."); len(got) != 0 {
		t.Errorf("unresolved subjects: %s", show(got))
	}
}

// TestExtractTable: a Markdown table yields (row entity, column header,
// cell), with the row line verbatim as its sentence.
func TestExtractTable(t *testing.T) {
	chunk := "Table 1 – Green Automation Programme grants, 2026 round\n\n" +
		"| Recipient | Project | Grant (NOK million) |\n" +
		"|---|---|---|\n" +
		"| Northwind Robotics | Energy-efficient gripper | 9.5 |\n" +
		"| Kvarts Battery Systems |  | 7.0 |\n" +
		"| 2025 | none | 1.0 |\n" +
		"|  | Unnamed | 2.0 |\n\n" +
		"Source: Innovation Trøndelag."
	got := Extract(chunk)
	want := []Triple{
		{Head: "Northwind Robotics", Relation: "Project", Tail: "Energy-efficient gripper"},
		{Head: "Northwind Robotics", Relation: "Grant (NOK million)", Tail: "9.5"},
		{Head: "Kvarts Battery Systems", Relation: "Grant (NOK million)", Tail: "7.0"},
	}
	var tables []Triple
	for _, x := range got {
		if x.Kind == KindTable {
			tables = append(tables, x)
		}
	}
	if len(tables) != len(want) {
		t.Fatalf("got%s\nwant %d table triples", show(tables), len(want))
	}
	for i, w := range want {
		g := tables[i]
		if g.Head != w.Head || g.Relation != w.Relation || g.Tail != w.Tail {
			t.Errorf("got (%s | %s | %s), want (%s | %s | %s)", g.Head, g.Relation, g.Tail, w.Head, w.Relation, w.Tail)
		}
		if chunk[g.Sentence.Start:g.Sentence.End] != g.Sentence.Text || !strings.HasPrefix(g.Sentence.Text, "| "+w.Head) {
			t.Errorf("row %q is not the verbatim line of the chunk", g.Sentence.Text)
		}
	}
}

// TestExtractTableFreeText: a column of remarks ("Notes", "Description")
// and a cell that is prose give no fact; the values beside them do.
func TestExtractTableFreeText(t *testing.T) {
	chunk := "Table 8.23. Fjord Types\n\n" +
		"| Fjord type | Quill type | Notes |\n" +
		"|---|---|---|\n" +
		"| string | text | Escapes are disallowed |\n" +
		"| number | numeric | NaN and infinity values are disallowed. See the manual for the details of the accepted spellings |\n" +
		"| null | json | A named variable. Its value can be set elsewhere. |\n"
	got := tableFacts(chunk)
	want := []string{"string|Quill type|text", "number|Quill type|numeric", "null|Quill type|json"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("table facts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !proseCell("NaN and infinity values are disallowed. See the manual") || !proseCell("one two three four five six seven eight nine ten eleven") || proseCell("12.5 MB/s") {
		t.Error("proseCell")
	}
}

// tableFacts is each table fact of a chunk as "head|relation|tail".
func tableFacts(chunk string) []string {
	var got []string
	for _, x := range Extract(chunk) {
		if x.Kind == KindTable {
			got = append(got, x.Head+"|"+x.Relation+"|"+x.Tail)
		}
	}
	return got
}

func ExampleExtract() {
	chunk := "Acme Corp's revenue in Q3 2025 was $4.2 billion, up 8% from a year earlier. " +
		"\"We are pleased,\" said chief executive Jane Doe. Northwind Bank appointed Maria Lopez as chief financial officer."
	for _, x := range Extract(chunk) {
		fmt.Printf("(%s | %s | %s) from %q\n", x.Head, x.Relation, x.Tail, x.Sentence.Text)
	}
	// Output:
	// (Acme Corp's revenue in Q3 2025 | was | $4.2 billion) from "Acme Corp's revenue in Q3 2025 was $4.2 billion, up 8% from a year earlier."
	// (Northwind Bank | appointed | Maria Lopez) from "Northwind Bank appointed Maria Lopez as chief financial officer."
	// (Northwind Bank | chief financial officer | Maria Lopez) from "Northwind Bank appointed Maria Lopez as chief financial officer."
}

// TestExtractTableMarks: a header that asks ("Overwrite if exists?"), a
// yes/no mark and a cell of items on their own lines make no question; the
// values beside them still do.
func TestExtractTableMarks(t *testing.T) {
	chunk := "| Function | Overwrite if exists? | Returns | Rule |\n|---|---|---|---|\n" +
		"| quill_set() | Yes | the new record | 3 |\n" +
		"| quill_put() | No | y | 4 |\n" +
		"| REAL; DOUBLE; FLOAT | No | a number | 5 |\n" +
		"| quill_get() | x | The integer record id. | 6 |\n" +
		"| N≥12 and even | No | a blob | 7 |\n" +
		"| size >= 4 | No | a word | 8 |\n"
	got := tableFacts(chunk)
	want := []string{"quill_set()|Returns|the new record", "quill_set()|Rule|3", "quill_put()|Rule|4", "quill_get()|Rule|6"}
	if !slices.Equal(got, want) {
		t.Errorf("table facts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestExtractTableValueRows: a table whose first column holds a setting's
// values ("| type | default |" under the setting's heading) names no thing
// in its rows; a header that is a clause ("What happens") and a cell that
// points elsewhere ("(see description)") are not asked either.
func TestExtractTableValueRows(t *testing.T) {
	chunk := "#### FileCreateMode\n\n| type | default | mandatory |\n|---|---|---|\n| octalNumber | 0644 | no |\n\n" +
		"| Mode | What happens | Default |\n|---|---|---|\n| quill | Read from local | (see description) |\n| lint | Write | 4 |\n"
	got := tableFacts(chunk)
	want := []string{"lint|Default|4"}
	if !slices.Equal(got, want) {
		t.Errorf("table facts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestExtractTablePlaceholders: a cell that records the absence of a value
// ("n/a", any dash, "none", "TBD", "Not applicable", blanks of punctuation)
// never becomes a triple, so it can never become a gold answer; real values
// next to it, including words that merely contain those letters, still do.
func TestExtractTablePlaceholders(t *testing.T) {
	placeholders := []string{"n/a", "N/A", "N.A.", "na", "–", "-", "—", "‒", "―", "−", "--", "?", "…", "*",
		"none", "None", "nil", "NULL", "NaN", "not applicable", "Not available", "n. a.", "TBD", "t.b.a.", "unknown", "(none)"}
	values := []string{"Nadia", "nonet", "pending", "0", "12%", "Null Island Ltd", "N/A Systems"}
	var b strings.Builder
	b.WriteString("| Product | Status |\n|---|---|\n")
	for i, v := range placeholders {
		fmt.Fprintf(&b, "| Widget %c | %s |\n", 'A'+rune(i), v)
	}
	for i, v := range values {
		fmt.Fprintf(&b, "| Gadget %c | %s |\n", 'A'+rune(i), v)
	}
	var tails []string
	for _, x := range Extract(b.String()) {
		if x.Kind == KindTable {
			tails = append(tails, x.Tail)
		}
	}
	if !slices.Equal(tails, values) {
		t.Errorf("table tails = %q, want only the real values %q", tails, values)
	}
}
