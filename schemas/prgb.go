package schemas

// PRGBFacts is what the knowledge graph holds around a question's answer
// when the question is built, for PRGB's placeholder variants (perturb
// placeholder.go; PRGB §"Dynamic placeholder substitution" and
// §"Multi-level filtering"). Perturb sees one question at a time and no
// graph, so the question stage, which has the graph, hands it over here.
//
// Every list is sorted deterministically (by a hash of the question's
// instance and the fact), so a question built twice from the same graph
// carries the same facts.
type PRGBFacts struct {
	// Candidates are values of the answer's class in the graph: the values
	// other subjects take for the answer's relation ("Lars Berg" for a
	// question whose answer is the director Ingrid Solberg). Perturb
	// substitutes one for the answer when the answer is a named entity;
	// dates, figures, money and percentages are generated instead.
	Candidates []string `json:"candidates,omitempty"`
	// Weak, Moderate and Hard are the sentences of noise facts by graph
	// distance (PRGB's three noise levels): facts about entities more than
	// two hops from the question's entities; sibling facts (the answer's
	// relation, another subject); facts of the subject's parent or of the
	// subject in another period, on the answer's relation, whose value
	// conflicts with the answer.
	Weak     []string `json:"weak,omitempty"`
	Moderate []string `json:"moderate,omitempty"`
	Hard     []string `json:"hard,omitempty"`
}
