// Package fanout runs the "fanout" stage, rs.variants → rs.eval.requests
// (docs/methods.md, Fan-out and prompts): every variant of a question is
// asked of every configured model, and the original variant also yields the
// closed-book request (no context) that RARE's judge f needs to tell "known"
// from "unknown" questions (RARE §3.3, Table 2).
//
// It owns the prompt templates, so the prompt and therefore the request id
// (hash of model, prompt and decoding parameters) are defined in one place.
// It must not call models, judge answers or keep state: each variant maps to
// its requests on its own, and Expected on every request tells pairing how
// many results complete the (model, question) set.
package fanout
