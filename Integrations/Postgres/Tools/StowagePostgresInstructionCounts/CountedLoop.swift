/// Runs `operation` `iterations` times and sums what it returns.
///
/// The one stretch of the program callgrind counts, as in the root package's
/// Tools/StowageInstructionCounts (a tool there, not a product, so this
/// package keeps its own copy): Scripts/instruction-counts.sh turns
/// collection on when a function named `countedLoop` is entered and off when
/// it returns, on that thread only, so neither the setup nor the store's own
/// threads reach the figures. Never inlined, so the name stays in the binary;
/// specialised for the one closure it is given, so the read is inlined into
/// the loop, under a longer name that still holds `countedLoop`, the one the
/// script finds with nm.
@inline(never)
func countedLoop(_ iterations: Int, _ operation: () -> Int) -> Int {
    var sum = 0
    for _ in 0..<iterations { sum &+= operation() }
    return sum
}
