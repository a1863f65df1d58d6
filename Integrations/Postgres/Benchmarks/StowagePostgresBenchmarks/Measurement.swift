import StowageBenchmarkSupport

/// Times `body` once.
func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = Timestamp.now()
    try body()
    return start.elapsed
}

/// Times `body` once, for async work.
func measureAsync(_ body: () async throws -> Void) async rethrows -> Double {
    let start = Timestamp.now()
    try await body()
    return start.elapsed
}
