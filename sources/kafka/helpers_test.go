package kafka

import kafkago "github.com/segmentio/kafka-go"

func kafkagoMessage(key, value string, null bool) kafkago.Message {
	m := kafkago.Message{Topic: "t", Key: []byte(key), Value: []byte(value)}
	if null {
		m.Value = nil
	}
	return m
}
