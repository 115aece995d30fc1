// Package perturb makes the rule-based variants of a question (RARE §3.1
// query perturbations and §3.2 document perturbations; docs/methods.md,
// Perturbations) and runs the "perturb" stage, rs.questions → rs.variants.
//
// Query kinds are TextAttack-equivalent rules: char (swap, delete, insert or
// substitute one character), qwerty (a keyboard-neighbour typo) and wordnet
// (a synonym from Debian's wordnet-base dictionary, parsed here). The
// document kind answer_removed deletes the sentences holding the answer, so
// the context stays lexically similar but no longer answers the question.
// The cross cells (axis cross) pair every perturbed query with every
// perturbed context, completing the query × context product RARE's overall
// robustness averages over (§3.3.1, eq. 1).
//
// Every perturbation is seeded by (question id, kind) so that a replayed
// question yields the same variants and ids. A perturbation that cannot
// be made is skipped and counted, never faked: metrics coverage shows which
// kinds are missing. The LLM kinds (llm.go: llm_grammar, llm_irrelevant,
// back_translation) call the generator the engine hands the stage
// (Stage.SetGenerator), through a persistent reply cache; without one they
// are skipped and counted. No kind changes the answer a question expects.
package perturb
