import StowageTestSupport

extension WorkerProcess {
    /// The `StowageJSONFileWorker` executable: writes, counts and migrates as a second process.
    static let jsonFile = WorkerProcess("StowageJSONFileWorker")
}
