/// One operation whose instructions are counted: how to set it up, and what
/// each run of it must give.
///
/// `prepare` does everything but the counted loop (opening stores, writing
/// values, running the operation a few times so lazy work is done), and
/// hands back the operation; its result, summed over the loop, must be
/// `expected` times the iteration count, or the tool fails rather than
/// report the count of an operation that went wrong.
struct HotPath: Sendable {
    /// The name the script and `Benchmarks/instruction-counts.txt` use.
    let name: String
    /// What the operation is, in a line, for `--list` and the guide.
    let summary: String
    /// What one run of the operation returns.
    let expected: Int
    let prepare: @Sendable () throws -> () -> Int

    /// Runs the operation this many times before counting, so the first
    /// calls' one-off work (a reference made, a symbol bound) is not counted.
    static let warmUpIterations = 100
}
