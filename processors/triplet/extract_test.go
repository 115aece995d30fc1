package triplet

import (
	"fmt"
	"testing"
)

func TestExtract(t *testing.T) {
	// Each sentence with its expected (head, relation, tail); "" means the
	// extractor must stay silent.
	for _, tc := range []struct{ sentence, head, relation, tail string }{
		// The demo feed's plain statements.
		{"Acme Corp's revenue in Q3 2025 was $4.2 billion.", "Acme Corp's revenue in Q3 2025", "was", "$4.2 billion"},
		{"Acme Corp's revenue in Q3 2025 was $4.57 billion, up 18.3% from Q3 2024.", "Acme Corp's revenue in Q3 2025", "was", "$4.57 billion"},
		{"Northwind Bank appointed Maria Lopez as chief financial officer.", "Northwind Bank", "appointed", "Maria Lopez"},
		{"In Q3 2025, Helios Energy appointed Laura Sato as chief financial officer, replacing Maria Dubois.", "Helios Energy", "appointed", "Laura Sato"},
		{"Acme Corp opened 12 new stores in Q3 2025, bringing its total to 1,164.", "Acme Corp", "opened", "12 new stores"},
		{"Acme Corp employed 12,171 people at the end of Q3 2025.", "Acme Corp", "employed", "12,171 people"},
		{"Bluepeak Logistics acquired Evergreen Couriers for $693.9 million in Q3 2025.", "Bluepeak Logistics", "acquired", "Evergreen Couriers"},
		{"Crestline Motors' revenue in Q2 2025 was $4.78 billion.", "Crestline Motors' revenue in Q2 2025", "was", "$4.78 billion"},
		{"Crestline Motors produces 5 electric models.", "Crestline Motors", "produces", "5 electric models"},
		{"Orion Pharmaceuticals launched Toroxan, a treatment for psoriasis, in Q3 2024.", "Orion Pharmaceuticals", "launched", "Toroxan"},
		{"Inflation in Valdoria was 2.5% in Q3 2025, up from 2.5% in Q2 2025.", "Inflation in Valdoria", "was", "2.5%"},
		{"The policy rate of the Central Bank of Valdoria stood at 2.94% at the end of Q3 2025.", "The policy rate of the Central Bank of Valdoria", "stood at", "2.94%"},
		{"Valdoria's exports in Q3 2025 totaled $15.02 billion.", "Valdoria's exports in Q3 2025", "totaled", "$15.02 billion"},
		{"Northwind Bank's loan book reached $46.55 billion at the end of Q3 2025.", "Northwind Bank's loan book", "reached", "$46.55 billion"},
		{"The Riverside Housing Program allocated $14.6 million to affordable housing in Q3 2025.", "The Riverside Housing Program", "allocated", "$14.6 million"},
		{"The Northern Skills Initiative named Leila Fischer as its new director in Q2 2024.", "The Northern Skills Initiative", "named", "Leila Fischer"},
		{"In Q2 2025, Acme Corp reported revenue of $4.65 billion.", "Acme Corp", "reported", "revenue of $4.65 billion"},
		// General forms.
		{"Acme Corp, a regional retailer, hired 300 engineers.", "Acme Corp", "hired", "300 engineers"},
		{"Acme Corp, which acquired Beta in 2023, opened 4 stores.", "Acme Corp", "opened", "4 stores"},
		{"Inflation in Valdoria rose sharply to 4.1% in June.", "Inflation in Valdoria", "rose to", "4.1%"},
		{"Dr. Jane Smith of Acme Inc. has appointed Tom Lee as CEO.", "Dr. Jane Smith of Acme Inc", "appointed", "Tom Lee"},
		{"Northwind Bank named Priya Shah chief executive officer.", "Northwind Bank", "named", "Priya Shah"},
		{"Acme Corp opened 12 stores and closed 3 outlets.", "Acme Corp", "opened", "12 stores"},
		{"The U.S. economy grew to $28 trillion.", "The U.S. economy", "grew to", "$28 trillion"},
		{"Helios Energy also acquired Summit Solar.", "Helios Energy", "acquired", "Summit Solar"},
		{"Acme Corp's chief executive is Jane Doe.", "Acme Corp's chief executive", "is", "Jane Doe"},
		// The harder sentences: nothing is better than a wrong fact.
		{"The company's revenue was $4 billion.", "", "", ""},
		{"It did not change its full-year guidance.", "", "", ""},
		{`"We delivered a solid quarter," said chief executive John Carter.`, "", "", ""},
		{"Chief executive John Smith said the results were encouraging.", "", "", ""},
		{"Acme Corp will open 5 stores in 2026.", "", "", ""},
		{"Acme Corp agreed to buy Silverline Markets, pending regulatory approval.", "", "", ""},
		{"Acme Corp was acquired by Beta Inc. in 2024.", "", "", ""},
		{"Ravi Brennan, previously at Brightwater Grid Services, was named chief financial officer of Helios Energy.", "", "", ""},
		{"The Central Bank of Marovia raised its policy rate by 25 basis points.", "", "", ""},
		{"Acme Corp expects revenue of about $4.79 billion in Q3 2025.", "", "", ""},
		{"Analysts had expected revenue of $3.94 billion.", "", "", ""},
		{"The statistics office said consumer spending remained resilient.", "", "", ""},
		{"There was no change to the Estorian budget outlook.", "", "", ""},
		{"Funding for the next quarter was approved by the oversight board.", "", "", ""},
		{"In Q3 2025 Acme Corp opened 12 stores.", "", "", ""},
		{"Acme Corp did not open any stores.", "", "", ""},
		{"Did Acme Corp open 12 stores?", "", "", ""},
		{"Revenue was strong.", "", "", ""},
	} {
		got := Extract(tc.sentence)
		if tc.head == "" {
			if len(got) != 0 {
				t.Errorf("%q: want nothing, got (%s | %s | %s)", tc.sentence, got[0].Head, got[0].Relation, got[0].Tail)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%q: got %d triples, want 1", tc.sentence, len(got))
			continue
		}
		g := got[0]
		if g.Head != tc.head || g.Relation != tc.relation || g.Tail != tc.tail || g.Sentence.Text != tc.sentence {
			t.Errorf("%q:\n got (%s | %s | %s)\nwant (%s | %s | %s)", tc.sentence, g.Head, g.Relation, g.Tail, tc.head, tc.relation, tc.tail)
		}
	}
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
}
