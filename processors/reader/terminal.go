package reader

import (
	"unicode/utf8"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

var _ streams.Terminator = (*Stage)(nil)

// maxErrorBytes bounds the error text kept on a result.
const maxErrorBytes = 1000

// Terminal implements streams.Terminator. A request the runner gives up on
// (its model kept failing, or it names an unknown model) becomes an error
// result: pairing counts it toward its (model, question) set, which then
// closes with that cell marked and left out of every metric, instead of
// staying open for ever. A request that does not decode gets nothing: there
// is no set to close, and the dead letter keeps it.
func (s *Stage) Terminal(m streams.Message, err error) []streams.Record {
	var req schemas.EvalRequest
	if schemas.Decode(m.Value, &req) != nil || req.RequestID == "" || req.QuestionID == "" {
		return nil
	}
	msg := err.Error()
	if len(msg) > maxErrorBytes {
		msg = msg[:maxErrorBytes]
		for !utf8.ValidString(msg) {
			msg = msg[:len(msg)-1]
		}
	}
	res := resultOf(&req)
	res.Error = msg
	res.EvaluatedAt = s.now().UTC()
	schemas.Stamp(res, ResultID(req.RequestID, req.QuestionID, req.VariantID), req.ID)
	b, eerr := schemas.Encode(res)
	if eerr != nil {
		return nil
	}
	return []streams.Record{{Topic: streams.TopicEvalResults, Key: []byte(res.Key()), Value: b}}
}
