extension StorageError {
    /// Hands the error to ``StowageReport/handler``.
    @usableFromInline
    package func report() {
        StowageReport.error(self).report()
    }

    /// Hands the error to the handler, naming `store` unless it names one already.
    @usableFromInline
    package func report(from store: some UnderlyingStorage) {
        attributed(toStore: store.storeName).report()
    }
}
