package reader

import (
	"fmt"
	"strings"
	"testing"
)

// refusals are answers that say the model cannot answer, as whole answers
// and as main clauses, with straight and typographic apostrophes.
var refusals = []string{
	// The examples users reported.
	"I can’t answer that",
	"The context doesn’t mention it",
	"Not mentioned in the context",
	"There is no information on this",
	// RARE's refusal, the benchmark tokens and short forms.
	RefusalText,
	"No such info.",
	"no such information is available",
	"NO-RES",
	"no_res",
	"N/A",
	"n/a.",
	"Unknown",
	"Not known.",
	"Insufficient information",
	"Not enough information.",
	"No idea.",
	"Sorry.",
	"",
	"…",
	"“”",
	// First person.
	"I don't know",
	"I don’t know.",
	"I do not know the answer.",
	"I can't answer this question.",
	"I cannot determine the CFO from the context.",
	"I'm not sure.",
	"I’m unable to answer that based on the passages.",
	"I do not have enough information to answer.",
	"I have no information about the CFO.",
	"We were unable to find the answer in the documents.",
	"I couldn't find the answer.",
	"I’m sorry, but I don’t have that information.",
	// The context is silent.
	"The provided passages do not say",
	"The context does not specify who the CFO is.",
	"The given documents are silent on this point.",
	"The documents make no mention of the CFO.",
	"None of the passages mention the CFO.",
	"Neither passage says when she started.",
	"Nothing in the context indicates the price.",
	"It doesn’t say.",
	"The document doesn't contain this information.",
	"The context is insufficient to answer.",
	"Research and development costs are not mentioned in the context.",
	// Passive and impersonal.
	"cannot be determined from the context",
	"The answer cannot be found in the provided passages.",
	"This question cannot be answered from the context.",
	"The CFO's name isn’t stated.",
	"That information is not available in the provided passages.",
	"It is not possible to determine the CFO from the context.",
	"It is unclear from the context.",
	"The price was not disclosed.",
	"The answer is not in the context.",
	"Unable to determine.",
	"There's no way to tell from the context.",
	"It's not mentioned.",
	// No information.
	"No relevant information found.",
	"There isn't enough information in the context to answer.",
	"There is no mention of the CFO.",
	"No information is provided about the CFO.",
	// A preamble, an aside or a guess around the refusal.
	"Answer: no such info",
	"Answer: Unknown",
	"Sorry, I cannot answer that from the context.",
	"Unfortunately, the context does not mention the CFO.",
	"Based on the provided context, the CFO cannot be determined.",
	"According to the passages, there is no information about the CFO.",
	"Based on the passages, which discuss Acme's revenue, I cannot determine the CFO.",
	"Although the context discusses Acme, it does not mention the CFO.",
	"I cannot answer that from the context, but it is probably Oslo.",
	"Unknown; the context is silent on it.",
	"N/A — the passages do not say.",
}

// answers are real answers, many of which contain the words refusals are
// made of ("no", "not", "none", "information", "unknown", "cannot") or a
// refusal phrase after the answer itself.
var answers = []string{
	"Maria Lopez",
	"$4.2 billion",
	"4.2%",
	"No",
	"Yes",
	"None",
	"0",
	"Not yet",
	"No. 5 Bank",
	"None of the above was affected: 4.2%",
	"Not applicable fees rose to $3",
	"Unknown Mortal Orchestra",
	"The Unknown Soldier",
	"Unknown Worlds Entertainment",
	"Infotech",
	"Information Services Group",
	"No Information Left Behind",
	"Insufficient funds",
	"NA Holdings",
	"Don't Know Why",
	"Known unknowns",
	"No dividend was paid in 2025.",
	"There is no debt.",
	"The bank has no branches in Oslo.",
	"It cannot pay dividends until 2026.",
	"Acme could not find a buyer.",
	"Regulators were unable to determine the cause.",
	"Loans were not provided to startups.",
	"No relevant change was reported.",
	"Unemployment was 4.2%, not 42%.",
	"Not 42% but 4.2%.",
	"The report says 4.2%.",
	"The context does mention it: $4.2 billion.",
	"Answer: 4.2%",
	"Revenue was $4.2 billion; the context does not mention the margin.",
	"Maria Lopez (the context does not mention her title).",
	"$4.2 billion, although the exact margin is not mentioned in the context.",
	"The CFO is Maria Lopez. The passages do not say when she started.",
	"Revenue was $4.2 billion but the context does not say more.",
	"Although revenue was $4.2 billion, the margin is not mentioned.",
	"Sorry Ltd",
	"Sorry, Maria Lopez",
	"Based on the context, the CFO is Maria Lopez.",
	"No information security breach occurred.",
	"Insufficient information security controls were cited.",
	"The lack of information hurt the stock.",
	"It does not include fees.",
	"We don't provide loans.",
	"I don't think so.",
	"No, the rate was 4.2%.",
	"The answer is not Oslo but Bergen.",
}

func TestRefusalTables(t *testing.T) {
	if len(refusals) < 30 || len(answers) < 30 {
		t.Fatalf("%d refusals and %d answers: the tables must hold at least 30 of each", len(refusals), len(answers))
	}
	for _, a := range refusals {
		if !IsRefusal(a) {
			t.Errorf("IsRefusal(%q) = false, want true", a)
		}
	}
	for _, a := range answers {
		if IsRefusal(a) {
			t.Errorf("IsRefusal(%q) = true, want false", a)
		}
	}
}

// TestRefusalIsFoldedText checks that refusal detection reads the text as
// normalization does: the same refusal in capitals, with straight or
// typographic apostrophes and with Unicode spaces is still one.
func TestRefusalIsFoldedText(t *testing.T) {
	for _, a := range refusals {
		for _, v := range []string{
			strings.ToUpper(a),
			strings.ReplaceAll(a, "’", "'"),
			strings.ReplaceAll(a, "'", "’"),
			strings.ReplaceAll(a, " ", "\u00a0"),
		} {
			if !IsRefusal(v) {
				t.Errorf("IsRefusal(%q) = false, but %q is a refusal", v, a)
			}
		}
	}
}

// TestRefusalJudged checks that the judge never scores a refusal correct,
// even when it contains the accepted answer.
func TestRefusalJudged(t *testing.T) {
	for _, a := range refusals {
		for _, m := range []string{MethodExact, MethodCovered, MethodTokenSeq} {
			if v := Judge(a, []string{a, "Oslo"}, m); !v.Refused || v.Correct {
				t.Errorf("Judge(%q, itself, %q) = %+v, want refused and not correct", a, m, v)
			}
		}
	}
}

func BenchmarkIsRefusal(b *testing.B) {
	for _, bc := range []struct{ name, answer string }{
		{"answer", "Maria Lopez"},
		{"sentence", "Northwind Bank appointed Maria Lopez as chief financial officer in the third quarter of 2025."},
		{"refusal", "Based on the provided context, I cannot determine who the CFO is."},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				IsRefusal(bc.answer)
			}
		})
	}
}

func ExampleIsRefusal() {
	fmt.Println(IsRefusal("I can’t answer that from the context."))
	fmt.Println(IsRefusal("Sorry, but the provided passages do not say."))
	fmt.Println(IsRefusal("Unknown Mortal Orchestra"))
	fmt.Println(IsRefusal("Revenue was $4.2 billion; the context does not mention the margin."))
	// Output:
	// true
	// true
	// false
	// false
}
