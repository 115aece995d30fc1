// Package demo is the built-in demo feed (docs/architecture.md, Stages):
// time-stamped, realistic domain reports whose facts change period over
// period, so that a fresh `make run` has time-sensitive material for RARE-Get
// (RARE §4, §5: financial, economic and policy documents).
//
// Each period (quarter; period 0 is 2024 Q1) it writes quarterly results of
// six fictional companies, economic indicators of three fictional countries
// and reports of two public programs, as Markdown with paragraphs and
// sometimes a table. Most fact sentences are plain subject–verb–object
// statements; a few are deliberately harder (reported speech, modals,
// passives, appositives). Everything is a pure function of (seed, period).
//
// It must not read files or the network, must not depend on wall-clock time
// for content (only FetchedAt and ProducedAt are "now"), and must not import
// processors or sinks.
package demo
