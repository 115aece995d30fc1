package streams

import (
	"strconv"
	"unicode/utf8"
)

// Dead-letter headers: a DLQ record keeps the original key, value and
// headers, and adds these.
const (
	HeaderDLQStage     = "rs-dlq-stage"
	HeaderDLQError     = "rs-dlq-error"
	HeaderDLQAttempts  = "rs-dlq-attempts"
	HeaderDLQTopic     = "rs-dlq-topic"
	HeaderDLQPartition = "rs-dlq-partition"
	HeaderDLQOffset    = "rs-dlq-offset"
)

// maxErrorHeader bounds the error text carried in a header (a panic stack
// can be long).
const maxErrorHeader = 4096

// DeadLetter builds the rs.dlq record for a message that a stage gave up on.
func DeadLetter(stage string, m Message, err error, attempts int) Record {
	msg := err.Error()
	if len(msg) > maxErrorHeader {
		msg = msg[:maxErrorHeader]
		for !utf8.ValidString(msg) {
			msg = msg[:len(msg)-1]
		}
	}
	hs := make([]Header, 0, len(m.Headers)+6)
	for _, h := range m.Headers {
		if h.Key == PartitionHeader {
			continue
		}
		hs = append(hs, h)
	}
	hs = append(hs,
		Header{Key: HeaderDLQStage, Value: []byte(stage)},
		Header{Key: HeaderDLQError, Value: []byte(msg)},
		Header{Key: HeaderDLQAttempts, Value: []byte(strconv.Itoa(attempts))},
		Header{Key: HeaderDLQTopic, Value: []byte(m.Topic)},
		Header{Key: HeaderDLQPartition, Value: []byte(strconv.Itoa(m.Partition))},
		Header{Key: HeaderDLQOffset, Value: []byte(strconv.FormatInt(m.Offset, 10))},
	)
	return Record{Topic: TopicDLQ, Key: m.Key, Value: m.Value, Headers: hs}
}

// HeaderValue returns the value of the first header named key.
func HeaderValue(hs []Header, key string) (string, bool) {
	for _, h := range hs {
		if h.Key == key {
			return string(h.Value), true
		}
	}
	return "", false
}
