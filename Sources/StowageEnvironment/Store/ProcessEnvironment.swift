#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process environment, read by walking `environ` once.
///
/// `ProcessInfo.processInfo.environment` copies the whole environment on
/// every call; the store reads it once and keeps its own copy. Writing goes
/// through `setenv`, which is unsafe while other threads read the
/// environment, so the store only calls it when told to mirror its writes.
enum ProcessEnvironment {
    /// Every `NAME=value` entry; an entry without `=` is skipped, and the
    /// first of two entries with one name wins, as `getenv` does.
    static func variables() -> [String: String] {
        var variables: [String: String] = [:]
        guard var entry = environmentPointer() else { return variables }
        while let pointer = entry.pointee {
            let length = strlen(pointer)
            let buffer = UnsafeRawBufferPointer(start: pointer, count: length)
            if let equals = buffer.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(decoding: buffer[..<equals], as: UTF8.self)
                if variables[name] == nil {
                    variables[name] = String(decoding: buffer[(equals + 1)...], as: UTF8.self)
                }
            }
            entry += 1
        }
        return variables
    }

    private static func environmentPointer() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        #if canImport(Darwin)
        _NSGetEnviron().pointee
        #else
        environ
        #endif
    }

    /// Sets or removes a variable of the process; unsafe while another thread
    /// reads the environment (see `Options.mirrorsWritesToProcessEnvironment`).
    static func set(_ value: String?, forName name: String) {
        if let value {
            setenv(name, value, 1)
        } else {
            unsetenv(name)
        }
    }
}
