package reader

import (
	"errors"
	"fmt"
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
	recs, eerr := s.errorResult(&req, err.Error())
	if eerr != nil {
		return nil
	}
	return recs
}

// ErrNotMade starts the error of a result for a slot whose variant was not
// made (a not-made marker from the slot's producer).
var ErrNotMade = errors.New("variant not made")

// errorResult is the result of req that records msg, cut to maxErrorBytes,
// instead of an answer.
func (s *Stage) errorResult(req *schemas.EvalRequest, msg string) ([]streams.Record, error) {
	if len(msg) > maxErrorBytes {
		msg = msg[:maxErrorBytes]
		for !utf8.ValidString(msg) {
			msg = msg[:len(msg)-1]
		}
	}
	res := resultOf(req)
	res.Error = msg
	res.EvaluatedAt = s.now().UTC()
	schemas.Stamp(res, ResultID(req.RequestID, req.QuestionID, req.VariantID), req.ID)
	b, err := schemas.Encode(res)
	if err != nil {
		return nil, fmt.Errorf("cannot encode result of request %s: %w", req.RequestID, err)
	}
	return []streams.Record{{Topic: streams.TopicEvalResults, Key: []byte(res.Key()), Value: b}}, nil
}
