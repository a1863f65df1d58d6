import StowageTestSupport

extension WorkerProcess {
    /// The `StowageEnvironmentWorker` executable, which calls `setenv` where no test thread reads the environment.
    static let environment = WorkerProcess("StowageEnvironmentWorker")
}
