import StowagePostgres

/// A setting as a user declares it on a `PostgresStore`, as group a of the
/// package's benchmarks reads it.
struct CounterSettings: Sendable {
    @PostgresStorage<Int> var counter: Int

    init(store: PostgresStore) {
        _counter = PostgresStorage(wrappedValue: 0, "counter", in: store)
    }
}
