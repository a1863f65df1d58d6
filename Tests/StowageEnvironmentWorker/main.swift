// A second process for the environment store's tests: it changes its own
// process environment with `setenv`, which is unsafe while the test process's
// other threads read theirs.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import StowageEnvironment

/// Prints one line of what the worker saw, for the test to compare.
func report(_ label: String, _ value: Any?) {
    print("\(label): \(value.map { "\($0)" } ?? "nil")")
}

func variable(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

do {
    // Started with STOWAGE_WORKER_VALUE=0x2A.
    let store = EnvironmentStore()
    report("read", try store.value(forKey: "stowageWorkerValue", as: Int.self))
    setenv("STOWAGE_WORKER_VALUE", "7", 1)
    report("before reload", try store.value(forKey: "stowageWorkerValue", as: Int.self))
    try store.reload()
    report("after reload", try store.value(forKey: "stowageWorkerValue", as: Int.self))

    try store.set(5, forKey: "stowageWorkerOverlay")
    report("overlay in the environment", variable("STOWAGE_WORKER_OVERLAY"))

    let mirroring = EnvironmentStore(options: .init(mirrorsWritesToProcessEnvironment: true))
    try mirroring.set(9, forKey: "stowageWorkerMirror")
    report("mirrored", variable("STOWAGE_WORKER_MIRROR"))
    try mirroring.reload()
    report("mirrored after reload", try mirroring.value(forKey: "stowageWorkerMirror", as: Int.self))
    try mirroring.removeValue(forKey: "stowageWorkerMirror")
    report("mirror removed", variable("STOWAGE_WORKER_MIRROR"))
} catch {
    print("error: \(error)")
    exit(1)
}
