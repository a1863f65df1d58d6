extension JSONFileStore {
    /// How a store lays out its file, when it writes, and how it notices changes made by others.
    ///
    /// ```swift
    /// var options = JSONFileStore.Options()
    /// options.keyLayout = .nested(separator: ".")
    /// options.writeDelay = .milliseconds(20)
    /// let store = JSONFileStore(url: configURL, options: options)
    /// ```
    public struct Options: Sendable, Hashable {
        /// When a setter's change reaches the disk.
        public enum Durability: Sendable, Hashable {
            /// The setter returns at once; changes are collected and written
            /// together in the background, at most ``Options/writeDelay`` later.
            /// `flush()` waits for them, and a normal exit writes them.
            case coalesced
            /// Every setter writes the file and waits until it is durable (fsync
            /// of the file and its directory) before returning. Slower by the
            /// cost of one fsync per write; for data that must survive a power cut
            /// the moment it is set.
            case immediate
        }

        /// How the store notices changes that other processes, or people, make to the file.
        public enum ChangeDetection: Sendable, Hashable {
            /// inotify on Linux, checking the file's status every `pollInterval`
            /// as well (and only that elsewhere).
            case automatic(pollInterval: Duration = .milliseconds(250))
            /// Only by checking the file's status every `interval`.
            case polling(interval: Duration)
            /// Only when this process writes the file (it rereads a changed file
            /// under the lock first) or calls `reload()`.
            case none
        }

        /// Pretty-printed (one member per line, sorted keys, diff-friendly) or compact.
        public var prettyPrinted: Bool
        /// Flat keys (the default) or paths through nested objects.
        public var keyLayout: KeyLayout
        /// Whether setters return before the disk is written (the default) or after.
        public var durability: Durability
        /// How long a change waits for others to join it before a background
        /// write; `.zero` writes as soon as a background thread gets to it.
        public var writeDelay: Duration
        /// How changes made outside this process are noticed.
        public var changeDetection: ChangeDetection
        /// The deepest nesting of arrays and objects the store reads or writes,
        /// from 1 to ``maximumSupportedDepth``; a value outside is brought
        /// within, so reading it back shows the limit in force.
        public var maximumDepth: Int {
            didSet { maximumDepth = Self.supportedDepth(maximumDepth) }
        }

        /// The largest `maximumDepth`: 1,000 levels.
        ///
        /// Writing, comparing, hashing and releasing a value recurse once per
        /// level, and a setter runs on the caller's thread, whose stack may be
        /// as small as 512 KiB (a secondary thread on Apple platforms). On
        /// such a stack, in an optimized build, the most demanding of them
        /// (writing a file of objects nested in objects) was measured to
        /// survive 1,291 levels; a deeper limit would let a file, read or
        /// set, crash the process.
        public static let maximumSupportedDepth = 1_000

        static func supportedDepth(_ depth: Int) -> Int {
            min(max(depth, 1), maximumSupportedDepth)
        }

        /// How long a write waits for the file's lock while another process
        /// holds it, before it fails with `StorageError.Code.timedOut`;
        /// `nil`, the default, waits as long as it takes. For a tool a person
        /// runs, which should say so rather than hang; a program's own
        /// writes keep the default, since a failed background write is
        /// retried anyway.
        public var lockTimeout: Duration?

        /// The defaults: pretty-printed, flat keys, coalesced writes within 100 ms, automatic change detection.
        public init(
            prettyPrinted: Bool = true,
            keyLayout: KeyLayout = .flat,
            durability: Durability = .coalesced,
            writeDelay: Duration = .milliseconds(100),
            changeDetection: ChangeDetection = .automatic(),
            maximumDepth: Int = 512,
            lockTimeout: Duration? = nil
        ) {
            self.prettyPrinted = prettyPrinted
            self.keyLayout = keyLayout
            self.durability = durability
            self.writeDelay = writeDelay
            self.changeDetection = changeDetection
            self.maximumDepth = Self.supportedDepth(maximumDepth)
            self.lockTimeout = lockTimeout
        }
    }
}

extension JSONFileStore.Options.ChangeDetection {
    /// How often the file's status is checked, if at all.
    var pollInterval: Duration? {
        switch self {
        case .automatic(let interval): interval
        case .polling(let interval): interval
        case .none: nil
        }
    }
}
