// Package pair runs the "pair" stage, rs.eval.results → rs.outcomes: it
// collects the results of one (model, question) set in keyed state and, when
// the set is complete, emits RARE's robustness judge f for every variant
// (RARE §3.3, Table 2; docs/methods.md, RARE's judge f and pairing).
//
// f needs the closed-book result ("known": the model answers correctly
// without context) next to each contextual result, which is why results are
// paired rather than scored one by one. When the closed-book request failed,
// known/unknown is undefined: families that need it emit nothing for the set,
// which is counted as unscorable instead of being scored as unknown. The pure
// core (Set, Outcomes) holds the rules; the stage only moves sets in and out
// of a Store.
//
// The package must not aggregate across questions (ClickHouse does that) nor
// re-judge answers (the infer stage, package reader, did).
package pair
