package question

import (
	"testing"
	"time"
)

// TestSingleFor: one natural question per kind of fact, anchored in time by
// the sentence or else by the publication month (never the run date).
func TestSingleFor(t *testing.T) {
	apr := time.Date(2026, 4, 28, 0, 0, 0, 0, time.UTC)
	const keyFigures = "Table 1 – Key figures, Northwind Robotics AS\n\n| Figure | 2024 | 2025 |\n|---|---|---|\n| Revenue (NOK million) | 349 | 412 |\n"
	const grants = "Table 1 – Green Automation Programme grants, 2026 round\n\n| Recipient | Grant (NOK million) |\n|---|---|\n| Northwind Robotics | 9.5 |\n"
	for _, tc := range []struct{ kind, head, relation, tail, sentence, chunk, want string }{
		// Attributes: roles, places, figures.
		{"attribute", "Northwind Robotics", "chief executive", "Anna Berg", "Anna Berg is the chief executive of Northwind Robotics.", "",
			"Who is the chief executive of Northwind Robotics as of April 2026?"},
		{"attribute", "Northwind Robotics", "based in", "Trondheim", "Northwind Robotics, based in Trondheim, had its strongest year in 2025.", "",
			"Where is Northwind Robotics based?"},
		{"attribute", "Fjordline Logistics", "revenue", "NOK 2.3 billion", "Fjordline Logistics reported revenue of NOK 2.3 billion for 2025.", "",
			"What was Fjordline Logistics' revenue for 2025?"},
		{"attribute", "The PickMate 3", "list price", "EUR 48,000", "The PickMate 3 has a list price of EUR 48,000.", "",
			"What is the PickMate 3's list price as of April 2026?"},
		{"attribute", "Lonevåg", "located in", "Osterøy municipality", "Lonevåg, in Osterøy municipality, is Fjordline's largest warehouse.", "",
			"Where is Lonevåg located?"},
		// Verbs: counts, amounts, changes, dates, passives.
		{"verb", "Northwind Robotics", "employs", "1,240 people", "Northwind Robotics employs 1,240 people.", "",
			"How many people does Northwind Robotics employ as of April 2026?"},
		{"verb", "Fjordline", "operates", "150 PickMate 3 robots", "Fjordline already operates 150 PickMate 3 robots at its terminal.", "",
			"How many PickMate 3 robots does Fjordline operate as of April 2026?"},
		{"verb", "Innovation Trøndelag", "awarded", "NOK 24 million", "Innovation Trøndelag awarded NOK 24 million to four projects in the 2026 round.", "",
			"How much did Innovation Trøndelag award, as reported in April 2026?"},
		{"verb", "Northwind Robotics' revenue", "rose by", "18%", "Northwind Robotics' revenue rose 18% to NOK 412 million in 2025.", "",
			"By how much did Northwind Robotics' revenue rise in 2025?"},
		{"verb", "Northwind Robotics' revenue", "rose to", "NOK 412 million", "Northwind Robotics' revenue rose 18% to NOK 412 million in 2025.", "",
			"What did Northwind Robotics' revenue rise to in 2025?"},
		{"verb", "Northwind Robotics", "opened on", "14 March 2026", "Northwind Robotics opened its new factory in Orkanger on 14 March 2026.", "",
			"When did Northwind Robotics open its new factory in Orkanger?"},
		{"verb", "Vik", "took up on", "5 January 2026", "Vik took up the position on 5 January 2026.", "",
			"When did Vik take up the position?"},
		{"verb", "Ingrid Solberg", "joined on", "February 2026", "In February 2026 Ingrid Solberg joined the board of Kvarts Battery Systems.", "",
			"When did Ingrid Solberg join the board of Kvarts Battery Systems?"},
		{"verb", "Acme Corp", "was acquired by", "Beta Inc.", "Acme Corp was acquired by Beta Inc. in 2024.", "",
			"Who acquired Acme Corp in 2024?"},
		{"verb", "Kvarts Battery Systems", "was founded in", "2019", "Kvarts Battery Systems was founded in 2019.", "",
			"When was Kvarts Battery Systems founded?"},
		// Copulas: an identity, a worth.
		{"copula", "Fjordline's largest warehouse", "is", "Lonevåg", "Lonevåg, in Osterøy municipality, is Fjordline's largest warehouse.", "",
			"What is Fjordline's largest warehouse as of April 2026?"},
		{"copula", "The Lonevåg order", "is worth", "NOK 168 million", "The Lonevåg order is worth NOK 168 million.", "",
			"How much is the Lonevåg order worth as of April 2026?"},
		// Tables: an entity row; a row of figures under period columns.
		{"table", "Northwind Robotics", "Grant (NOK million)", "9.5", "| Northwind Robotics | 9.5 |", grants,
			`What is the grant (NOK million) of Northwind Robotics in "Green Automation Programme grants, 2026 round"?`},
		{"table", "Revenue (NOK million)", "2025", "412", "| Revenue (NOK million) | 349 | 412 |", keyFigures,
			`In "Key figures, Northwind Robotics AS", what was the figure for revenue (NOK million) in 2025?`},
		// A period column without a caption names nothing: no question.
		{"table", "Revenue", "2025", "412", "| Revenue | 349 | 412 |", "| Figure | 2024 | 2025 |\n|---|---|---|\n| Revenue | 349 | 412 |", ""},
		// The answer inside the question: none.
		{"attribute", "Anna Berg Holding", "chief executive", "Anna Berg", "Anna Berg is the chief executive of Anna Berg Holding.", "", ""},
	} {
		got, ok := SingleFor(tc.kind, tc.head, tc.relation, tc.tail, tc.sentence, tc.chunk, apr)
		if tc.want == "" {
			if ok {
				t.Errorf("SingleFor(%s, %q, %q, %q) = %q, want none", tc.kind, tc.head, tc.relation, tc.tail, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("SingleFor(%s, %q, %q, %q) = %q, %v\nwant %q", tc.kind, tc.head, tc.relation, tc.tail, got, ok, tc.want)
			continue
		}
		if _, why := WellFormed(got, tc.tail); why != "" {
			t.Errorf("%q / %q: not well-formed: %s", got, tc.tail, why)
		}
	}
}

// TestReleaseQuestions: the facts of release notes, asked with the release
// their head carries.
func TestReleaseQuestions(t *testing.T) {
	for _, tc := range []struct{ head, relation, tail, sentence, want string }{
		{"coreutils 9.1", "released on", "2022-04-15", "* Noteworthy changes in release 9.1 (2022-04-15) [stable]",
			"When was coreutils 9.1 released?"},
		{"cat (coreutils 9.1)", "now uses", "copy_file_range", "cat now uses the copy_file_range syscall if available.",
			"In coreutils 9.1, which syscall does cat now use?"},
		{"cksum (coreutils 9.1)", "no longer allows", "abbreviated algorithm names", "cksum no longer allows abbreviated algorithm names,",
			"In coreutils 9.1, what does cksum no longer allow?"},
		{"the egrep and fgrep commands (grep 3.8)", "have been deprecated since", "release 2.5.3",
			"The egrep and fgrep commands, which have been deprecated since release 2.5.3 (2007), now warn.",
			"In grep 3.8, since which release have the egrep and fgrep commands been deprecated?"},
		{"the bug fixed in sed 4.9 where 'sed --follow-symlinks -i' loops forever", "introduced in", "sed 4.2", "[bug introduced in sed 4.2]",
			"Which release introduced the bug fixed in sed 4.9 where 'sed --follow-symlinks -i' loops forever?"},
		{"the most severe CVE fixed in OpenSSL 3.0.19", "severity", "High", "The most severe CVE fixed in this release is High.",
			"What is the severity of the most severe CVE fixed in OpenSSL 3.0.19?"},
		// a past verb is asked with "did"
		{`"quill rebase" (Quill 4.2)`, "gained", `"--update-refs"`, `"quill rebase" gained the "--update-refs" option.`,
			`In Quill 4.2, which option did "quill rebase" gain?`},
		{`"fjord bundle" (Quill 4.2)`, "learnt", `"--quiet"`, `"fjord bundle" learnt the "--quiet" option.`,
			`In Quill 4.2, which option did "fjord bundle" learn?`},
	} {
		got, ok := SingleFor("release", tc.head, tc.relation, tc.tail, tc.sentence, "", time.Time{})
		if !ok || got != tc.want {
			t.Errorf("SingleFor(release, %q, %q, %q) = %q, %v\nwant %q", tc.head, tc.relation, tc.tail, got, ok, tc.want)
			continue
		}
		if _, why := WellFormed(got, tc.tail); why != "" {
			t.Errorf("%q / %q: not well-formed: %s", got, tc.tail, why)
		}
	}
}

// TestWellFormedQuestions: the checks any generator's question and answer
// go through, with the first check failed.
func TestWellFormedQuestions(t *testing.T) {
	for _, tc := range []struct{ question, answer, failed string }{
		{"Who is the chief executive of Northwind Robotics as of April 2026?", "Anna Berg", ""},
		{"How many people does Northwind employ as of April 2026?", "1,240 people", ""},
		{"What was Northwind Robotics' revenue in 2025?", "NOK 412 million", ""},
		{"When did Northwind Robotics open its new factory in Orkanger?", "14 March 2026", ""},
		{"By how much did Northwind Robotics' revenue rise in 2025?", "18%", ""},
		{"Where is Northwind Robotics based?", "Trondheim", ""},
		{"What is the throughput of the PickMate 3?", "620 items per hour", ""},
		{`In "Key figures, Northwind Robotics AS", what was the figure for revenue (NOK million) in 2025?`, "412", ""},
		{"Which company supplies the battery modules of the robots that Fjordline ordered in March 2026?", "Kvarts Battery Systems", ""},
		// The release-note debris of the old extractor.
		{"What does Fix performance issue as of November 2026?", "in GIN index search startup", CheckSubjectNamed},
		{"What did To fix this create, as reported in November 2026?", "or attached", CheckSubjectNamed},
		{"What does Add support for X as of May 2026?", "Unicode 15", CheckSubjectNamed},
		{"What did it acquire in 2024?", "Beta Inc.", CheckSubjectNamed},
		{"What did the company open?", "a new plant", CheckSubjectNamed},
		// Not a question, or not one question.
		{"Northwind Robotics employs how many people", "1,240 people", CheckQuestionForm},
		{"Acme Corp opened stores?", "12 stores", CheckQuestionForm},
		{"When did Vik take up up the position?", "5 January 2026", CheckQuestionForm},
		{"What? Who is the chief executive of Northwind?", "Anna Berg", CheckQuestionForm},
		// Answers that are pieces of clauses.
		{"What did Northwind Robotics ship in 2025?", "in 2025 and", CheckAnswerWhole},
		{"What does Northwind Robotics make as of April 2026?", "which picks items", CheckAnswerWhole},
		{"What does Northwind Robotics make as of April 2026?", "usually include robots", CheckAnswerWhole},
		{"What did Northwind Robotics sign in March 2026?", "its largest contract with", CheckAnswerWhole},
		{"What did Northwind Robotics announce in March 2026?", "supplies robots to Fjordline", CheckAnswerWhole},
		{"What did Northwind Robotics launch in 2024?", `the "PickMate 3`, CheckAnswerWhole},
		// The answer given away.
		{"Who is Anna Berg, the chief executive of Northwind Robotics?", "Anna Berg", CheckAnswerNotInQuestion},
	} {
		scores, why := WellFormed(tc.question, tc.answer)
		if why != tc.failed {
			t.Errorf("WellFormed(%q, %q) failed %q, want %q (scores %v)", tc.question, tc.answer, why, tc.failed, scores)
		}
		if len(scores) != 6 {
			t.Errorf("WellFormed(%q): %d scores, want 6", tc.question, len(scores))
		}
	}
}
