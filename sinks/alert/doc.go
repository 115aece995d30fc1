// Package alert delivers drift alerts to receivers: a streams.Sink that
// reads rs.alerts and POSTs each alert, as it fires and as it resolves, to
// every configured receiver — a generic JSON webhook, a Slack-compatible
// incoming webhook (text and blocks), or Alertmanager's API v2
// (POST /api/v2/alerts with labels, annotations, startsAt, endsAt and
// generatorURL).
//
// A receiver that fails is retried with capped exponential backoff,
// honouring its Retry-After; one that stays down past its attempts, or
// refuses an alert outright, has that alert dead-lettered to rs.dlq (the
// runner writes the record from the streams.BatchError this sink returns),
// and the stream moves on. URLs and header values may reference ${ENV}:
// secrets stay out of the config file and out of the logs, which name a
// receiver, never its URL or headers.
//
// It decides nothing about drift (processors/drift does) and must not
// import other sinks, sources or processors: streams and schemas only.
package alert
