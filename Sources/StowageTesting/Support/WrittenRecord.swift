/// A value one writer of the reads-during-writes check wrote: whole, it says
/// who wrote it and carries a checksum, so a torn or foreign value shows.
struct WrittenRecord {
    let writer: Int
    let iteration: Int

    var value: [String: Int] {
        ["writer": writer, "iteration": iteration, "checksum": Self.checksum(writer: writer, iteration: iteration)]
    }

    private static func checksum(writer: Int, iteration: Int) -> Int {
        writer &* 1_000_003 &+ iteration &* 7_919 &+ 17
    }

    /// Why `read` is not a value some writer wrote, as the end of a sentence, or `nil` when it is one.
    static func problem(with read: [String: Int]?, writers: Int, iterations: Int) -> String? {
        guard let read else { return "but the key was absent; it was written before reading began and never removed." }
        guard read.count == 3, let writer = read["writer"], let iteration = read["iteration"], let checksum = read["checksum"] else {
            return "but every value written had exactly the keys writer, iteration and checksum: a torn or foreign value."
        }
        guard (-1..<writers).contains(writer), (0..<iterations).contains(iteration), writer >= 0 || iteration == 0 else {
            return "but no writer wrote that writer and iteration: a foreign value."
        }
        guard checksum == Self.checksum(writer: writer, iteration: iteration) else {
            return "but its checksum does not match its writer and iteration: a torn value."
        }
        return nil
    }
}
