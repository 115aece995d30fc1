package triplet

import (
	"strings"
	"testing"
)

func TestSentences(t *testing.T) {
	f := func(text string, want ...string) {
		t.Helper()
		var got []string
		for _, s := range Sentences(text) {
			if text[s.Start:s.End] != s.Text {
				t.Fatalf("span [%d:%d] is not %q", s.Start, s.End, s.Text)
			}
			got = append(got, s.Text)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("Sentences(%q)\n got %q\nwant %q", text, got, want)
		}
	}
	f("")
	f("One.", "One.")
	f("Revenue was $4.2 billion. Margin was 12.4%.", "Revenue was $4.2 billion.", "Margin was 12.4%.")
	f("Margin was 11.6%. Acme Corp employed 12,400 people.", "Margin was 11.6%.", "Acme Corp employed 12,400 people.")
	f("Dr. Jane Smith joined Acme Inc. in May.", "Dr. Jane Smith joined Acme Inc. in May.")
	f("He met Mr. Lee and J. Smith. They agreed.", "He met Mr. Lee and J. Smith.", "They agreed.")
	f("The deal closed at Acme Inc. The company grew.", "The deal closed at Acme Inc.", "The company grew.")
	f("Mateo Lindqvist was named CEO of Acme Corp. Acme Corp agreed to buy Beta.",
		"Mateo Lindqvist was named CEO of Acme Corp.", "Acme Corp agreed to buy Beta.")
	f("It bought Acme Co. Ltd. last year.", "It bought Acme Co. Ltd. last year.")
	f("The U.S. Treasury issued bonds. Growth in the U.S. The end.", "The U.S. Treasury issued bonds.", "Growth in the U.S.", "The end.")
	f("Prices rose, e.g. Fuel costs. Done.", "Prices rose, e.g. Fuel costs.", "Done.")
	f(`He said "Growth was strong. Demand was high." Then it ended.`,
		`He said "Growth was strong. Demand was high."`, "Then it ended.")
	f(`"We are pleased," said Ms. Ortiz. Sales rose!`, `"We are pleased," said Ms. Ortiz.`, "Sales rose!")
	f("Is it done? Yes.", "Is it done?", "Yes.")
	f("version 2.0.1 shipped. ok", "version 2.0.1 shipped. ok")
	// Markdown structure: headings and tables are not prose; list items and
	// paragraphs end sentences even without a full stop.
	f("# Title\n\nFirst para\nwraps here.\n\n| a | b |\n|---|---|\n\n- item one\n- item two.",
		"First para\nwraps here.", "item one", "item two.")
	f("```\ncode. Not prose.\n```\nAfter.", "After.")
}
