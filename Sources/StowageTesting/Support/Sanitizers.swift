#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this process runs under ThreadSanitizer or AddressSanitizer,
/// whose runtimes export these entry points to the dynamic linker.
enum Sanitizers {
    static let areActive: Bool = {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        guard let process = dlopen(nil, RTLD_LAZY) else { return false }
        return dlsym(process, "__tsan_init") != nil || dlsym(process, "__asan_init") != nil
        #else
        return false
        #endif
    }()
}
