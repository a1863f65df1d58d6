/// Runs `operation` `iterations` times and sums what it returns.
///
/// The one stretch of the program callgrind counts: Scripts/instruction-counts.sh
/// turns collection on when this function is entered and off when it returns
/// (`--toggle-collect`, by the name `countedLoop`), so the setup and the warm-up
/// around it never reach the figures. Never inlined, so the name stays in the
/// binary; the sum is checked by the caller, so the optimizer can drop no read.
@inline(never)
func countedLoop(_ iterations: Int, _ operation: () -> Int) -> Int {
    var sum = 0
    for _ in 0..<iterations { sum &+= operation() }
    return sum
}
