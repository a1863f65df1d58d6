/// How `fractional` turns what it buckets by into a bucket. flagd's
/// evaluators disagree here while flagd moves from hashing text to hashing a
/// typed encoding (its decision record "Harden hashing consistency", and a
/// draft on high-precision bucketing), so a fleet that shares rules with
/// other flagd providers picks the one they run.
///
/// Both scale a 32-bit MurmurHash3 (x86, seed 0) to the sum of the weights
/// as `(hash × sum) >> 32`, allow weights up to that sum of 2,147,483,647,
/// and read a negative weight as 0. They differ in what they hash:
///
/// | | ``flagdCore`` (the default) | ``flagdGo`` |
/// |---|---|---|
/// | bucketing by text | its canonical CBOR encoding | its UTF-8 bytes |
/// | by a number, boolean, list or object | its canonical CBOR encoding | not possible: the first argument is read as a variant |
/// | without a bucketing value | the CBOR list `[flag key, targeting key]` | the flag key and the targeting key joined, as text |
/// | a bucketing value that is null (an attribute the context lacks) | no variant: the default variant | the targeting key, as without one |
///
/// So the same rule and context can give different variants; with neither,
/// a rule splits the same way in every provider of one kind.
public enum FractionalBucketing: String, Sendable, Hashable, CaseIterable {
    /// What PyPI's `openfeature-flagd-core` 2.0.0 computes: the typed
    /// encoding of flagd's accepted decision record, which providers are adopting.
    case flagdCore = "flagd-core-2"
    /// What flagd v0.16.1's own Go evaluator computes (`core/pkg/evaluator/fractional.go`),
    /// and so flagd the daemon and its OFREP endpoints at that version.
    case flagdGo = "flagd-go-0.16"
}
