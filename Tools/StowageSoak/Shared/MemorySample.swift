#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The memory of this process: resident, from `/proc/self/status`, and the
/// heap in use, from glibc's `malloc_info`. Resident memory is what the soak
/// bounds; the heap tells a leak (live bytes that keep growing) from an
/// allocator that keeps freed pages for later.
struct MemorySample: Codable, Sendable {
    /// `VmRSS`: resident now, in KiB.
    var residentKiB: Int
    /// `VmHWM`: the most ever resident, in KiB.
    var peakKiB: Int
    /// Bytes `malloc` handed out and did not get back, in KiB; `nil` where it can not tell.
    var heapInUseKiB: Int?

    static func current() -> MemorySample {
        var sample = MemorySample(residentKiB: 0, peakKiB: 0, heapInUseKiB: heapInUseKiB())
        guard let bytes = RawFile.read("/proc/self/status") else { return sample }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kiB = Int(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { sample.residentKiB = kiB }
            if fields[0] == "VmHWM:" { sample.peakKiB = kiB }
        }
        return sample
    }

    /// From the totals `malloc_info` writes after its per-arena sections: the
    /// arenas' memory, less the free chunks in them, plus the chunks it mapped
    /// on their own. Looked up at run time, as Swift does not import `malloc.h`.
    private static func heapInUseKiB() -> Int? {
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(nil, "malloc_info") else { return nil }
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return nil }
        let status = unsafeBitCast(symbol, to: MallocInfo.self)(0, stream)
        fclose(stream)
        defer { free(buffer) }
        guard status == 0, let buffer else { return nil }
        let text = String(cString: buffer)
        func lastSize(_ element: String) -> Int? {
            guard let range = text.range(of: element, options: .backwards) else { return nil }
            let rest = text[range.upperBound...]
            guard let start = rest.range(of: "size=\"") else { return nil }
            return Int(rest[start.upperBound...].prefix { $0.isNumber })
        }
        guard let system = lastSize("<system type=\"current\""), let fast = lastSize("<total type=\"fast\""),
            let rest = lastSize("<total type=\"rest\"")
        else { return nil }
        // A sanitizer replaces malloc; glibc's arenas are then empty and say nothing.
        guard system > 0 else { return nil }
        return (system - fast - rest + (lastSize("<total type=\"mmap\"") ?? 0)) / 1024
    }

    static func mebibytes(_ kiB: Int) -> String {
        let sign = kiB < 0 ? "-" : ""
        let tenths = (abs(kiB) * 10 + 512) / 1024
        return "\(sign)\(tenths / 10).\(tenths % 10) MiB"
    }
}
