#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Stowage
import StowageJSON
import StowageLocking

extension JSONFileBacking {
    /// Why the file is being read, which decides what a bad file does.
    enum ReloadMode {
        /// The store is opening: a file that is not JSON is moved aside.
        case opening
        /// A writer holds the file lock and must know the file before replacing it.
        case locked
        /// A change was noticed: a bad file (perhaps half-saved by an editor) is
        /// reported once and left alone until it changes again.
        case monitoring
    }

    /// Loads the file the first time, and removes temporary files a killed writer left.
    func open() {
        do {
            removeAbandonedTemporaryFiles()
            announce(try reload(mode: .opening))
        } catch {
            state.withLock { $0.lastError = error }
            report(error)
        }
    }

    /// Rereads the file if its identity (device, inode, size, modification
    /// time) changed since it was last read or written, and folds the pending
    /// changes of this process back on top.
    ///
    /// Four steps: status, read, parse, install. Each step may end the reload
    /// (the file is unchanged, gone, unreadable or not a JSON object) with the
    /// keys that changed.
    /// - Returns: the keys whose visible value changed.
    func reload(mode: ReloadMode) throws(StorageError) -> [String] {
        if case .done(let changed) = try checkStatus(mode: mode) { return changed }
        let file: (bytes: [UInt8], status: FileStatus)
        switch try readFile() {
        case .done(let changed): return changed
        case .next(let read): file = read
        }
        let members: [String: StoredValue]
        switch try parse(file.bytes, identity: file.status.identity, mode: mode) {
        case .done(let changed): return changed
        case .next(let parsed): members = parsed
        }
        return install(members, status: file.status)
    }

    /// A step of `reload`: what the next step needs, or the keys that changed, ending it.
    private enum ReloadStep<Next> {
        case next(Next)
        case done([String])
    }

    /// Status: goes on only if a regular file is there and changed since it was last read or written.
    ///
    /// An `lstat` first: for anything but a symbolic link it says what `stat`
    /// would, and a writer holding the lock keeps it, so that its write takes
    /// the file's mode and owner from it rather than asking again.
    private func checkStatus(mode: ReloadMode) throws(StorageError) -> ReloadStep<Void> {
        let status: FileStatus?
        do {
            let pathStatus = try fileSystem.status(ofItemAt: path, followingSymlinks: false)
            if mode == .locked { heldLock.withLock { $0?.checkedPath = AtomicFileReplacement.CheckedPath(status: pathStatus) } }
            status = pathStatus?.kind == .symbolicLink ? try fileSystem.status(ofItemAt: path, followingSymlinks: true) : pathStatus
        } catch {
            return .done(try becomeReadOnly("its status could not be read (\(error)).", error: error))
        }
        guard let status else { return .done(replaceDisk(with: [:], identity: nil)) }
        if status.kind == .directory {
            return .done(try becomeReadOnly("a directory is in the settings file's place at \(path).", error: nil))
        }
        let known = state.withLock { $0.diskIdentity }
        if status.identity == known, status.kind == .regularFile { return .done([]) }
        return .next(())
    }

    /// Read: the file's bytes and the status of what was read (it may have changed since the status).
    private func readFile() throws(StorageError) -> ReloadStep<(bytes: [UInt8], status: FileStatus)> {
        do {
            let read = try fileSystem.readFile(at: path)
            return .next((read.bytes, read.status))
        } catch {
            if error.code == ENOENT { return .done(replaceDisk(with: [:], identity: nil)) }
            let reason =
                error.code == EACCES || error.code == EPERM
                ? "there is no permission to read \(path)." : "\(path) could not be read (\(error))."
            return .done(try becomeReadOnly(reason, error: error))
        }
    }

    /// Parse: the top-level object's members; text that is not JSON is handled as `mode` says.
    private func parse(_ bytes: [UInt8], identity: FileStatus.Identity, mode: ReloadMode) throws(StorageError) -> ReloadStep<[String: StoredValue]> {
        let document: JSONParser.Document
        do {
            document = try parser.parseDocument(bytes)
        } catch {
            return .done(try handleUnparsableFile(error, identity: identity, mode: mode))
        }
        guard case .dictionary(let members) = document.value else {
            return .done(
                try becomeReadOnly(
                    "\(path) holds \(document.value.kindDescription) at the top level, not a JSON object; the store will not overwrite it.",
                    error: nil))
        }
        if !document.duplicateKeys.isEmpty {
            let keys = document.duplicateKeys.map { "\($0.quotedKeys) (\($0.location))" }.joined(separator: ", ")
            report(
                StorageError(
                    code: .invalidJSON,
                    reason: "\(path) repeats keys: \(keys); the last member of each wins, with its spelling, and the next write keeps only it."
                ))
        }
        return .next(members)
    }

    /// Install: the members become what readers see, read-only if the file or its folder can not be written.
    ///
    /// The file and its folder are checked again (two `access` and a
    /// `readlink`) only when the file's owner or mode changed since they were
    /// last found writable, or the store is read-only: other processes' writes
    /// keep both, and with several writers every write rereads the file under
    /// the lock. A folder made read-only meanwhile shows when the next write
    /// fails, with that error.
    private func install(_ members: [String: StoredValue], status: FileStatus) -> [String] {
        let isKnownWritable = state.withLock { $0.readOnlyReason == nil && $0.foundWritableAs == status.access }
        if !isKnownWritable {
            let folder = FilePath.directory(of: FilePath.resolvingSymbolicLinks(path, in: fileSystem))
            guard fileSystem.isWritable(path), fileSystem.isWritable(folder) else {
                return replaceDisk(with: members, identity: status.identity, readOnlyReason: "there is no permission to write \(path) or its directory.")
            }
        }
        return replaceDisk(with: members, identity: status.identity, writableAs: status.access)
    }

    /// Installs a new disk document and rebuilds what readers see.
    /// - Parameters:
    ///   - reason: why the store may still not write the file (no
    ///     permission), or `nil`: a usable file, or none, so whatever made the
    ///     store read-only is gone.
    ///   - access: the file's owner and mode, when it and its folder were just found writable.
    private func replaceDisk(
        with members: [String: StoredValue], identity: FileStatus.Identity?, readOnlyReason reason: String? = nil, writableAs access: FileStatus.Access? = nil
    ) -> [String] {
        let layout = options.keyLayout
        let readOnlyError = reason.map { StorageError(code: .readOnly, reason: "the store is read-only: \($0)") }
        let (changed, dropped, isNewReason, becameWritable, resumesWriting) = state.withLock { state in
            let wasReadOnly = state.readOnlyReason != nil
            let isNewReason = reason != nil && state.readOnlyReason != reason
            state.disk = members
            state.diskIdentity = identity
            state.readOnlyReason = reason
            state.foundWritableAs = access
            if isNewReason { state.lastError = readOnlyError }
            state.reportedUnreadableIdentity = nil
            let (changed, dropped) = state.rebuildVisible(layout: layout)
            discardCachedValues(changed)
            // Changes kept pending while the store was read-only are written now, not at the next retry.
            let resumesWriting = wasReadOnly && reason == nil && !state.pending.isEmpty && !state.isWriteScheduled
            if resumesWriting { state.isWriteScheduled = true }
            return (changed, dropped, isNewReason, wasReadOnly && reason == nil, resumesWriting)
        }
        if isNewReason, let readOnlyError { reportReadOnly(readOnlyError) }
        if becameWritable {
            report(.writableAgain, .notice, "\(path) can be written again; the store accepts writes, and writes the changes it kept meanwhile.")
        }
        if resumesWriting { scheduleBackgroundWrite(after: .zero) }
        reportDropped(dropped)
        return changed
    }

    /// Reports pending changes that stood down because another writer made their key a prefix, or a value.
    func reportDropped(_ dropped: [StorageError]) {
        for error in dropped {
            state.withLock { $0.lastError = error }
            report(error)
        }
    }

    /// Records why the store refuses writes and reports it once; writers then
    /// fail on `readOnlyReason`, so this returns no changed keys rather than throwing.
    private func becomeReadOnly(_ reason: String, error underlying: (any Error)?) throws(StorageError) -> [String] {
        let error = StorageError(code: .readOnly, reason: "the store is read-only: \(reason)", underlyingError: underlying)
        let isNew = state.withLock { state in
            defer {
                state.readOnlyReason = reason
                state.lastError = error
            }
            return state.readOnlyReason != reason
        }
        if isNew { reportReadOnly(error) }
        return []
    }

    /// Tells that the store refuses writes from now on, and why.
    private func reportReadOnly(_ error: StorageError) {
        report(.madeReadOnly, .error, "\(error.reason.prefix(1).uppercased())\(error.reason.dropFirst()) Writes fail until the cause is gone.", error: error)
    }

    /// A file that is not JSON: moved aside when opening or before a write, so
    /// no data is destroyed and the store can go on; left alone otherwise.
    private func handleUnparsableFile(_ parseError: StorageError, identity: FileStatus.Identity, mode: ReloadMode) throws(StorageError) -> [String] {
        switch mode {
        case .monitoring:
            let isNew = state.withLock { state in
                defer { state.reportedUnreadableIdentity = identity }
                return state.reportedUnreadableIdentity != identity
            }
            if isNew {
                report(
                    StorageError(
                        code: .invalidJSON,
                        reason: "\(path) changed and is not valid JSON (\(parseError.reason)); keeping the values read before. "
                            + "It will be read again when it changes, or moved aside before this process next writes.",
                        underlyingError: parseError
                    ))
            }
            return []
        case .opening:
            do {
                return try withFileLock { () throws(StorageError) in try reload(mode: .locked) }
            } catch {
                // Moving the file aside needs the lock (on a read-only file system, say, the lock file can not be made).
                return try becomeReadOnly(
                    "\(path) is not valid JSON (\(parseError.reason)) and could not be locked to move it aside (\(error.reason)); it is left untouched.",
                    error: error)
            }
        case .locked:
            let target = FilePath.resolvingSymbolicLinks(path, in: fileSystem)
            let backup = backupPath(for: target)
            let folder: AtomicFileReplacement.OpenFolder?
            do throws(SystemCallError) {
                folder = try renameHoldingCurrentLock { () throws(SystemCallError) in try fileSystem.rename(target, to: backup) }
            } catch  where error.lockFileWasReplaced {
                // Another writer may hold the new lock file: start over under it.
                throw StorageError(code: .storeFailure, reason: "the lock file \(lockPath) was replaced while moving \(path) aside.", underlyingError: error)
            } catch {
                return try becomeReadOnly(
                    "\(path) is not valid JSON (\(parseError.reason)) and could not be moved aside (\(error)); it is left untouched.",
                    error: error)
            }
            try? AtomicFileReplacement(fileSystem: fileSystem).synchronizeDirectory(FilePath.directory(of: target), reusing: folder)
            let error = StorageError(
                code: .corruptFile,
                reason: "\(path) was not valid JSON (\(parseError.reason)). It was moved to \(backup), and the store "
                    + "starts from the values it held before (none, when opening).",
                underlyingError: parseError)
            state.withLock { $0.lastError = error }
            report(
                .fileMovedAside, .error,
                "\(path) was not valid JSON and was moved aside to \(backup); the store goes on from the values it held before (none, when opening).",
                details: ["backup": backup], error: error)
            // The file is gone; what this process knew stays, and the next write creates the file afresh.
            let known = state.withLock { $0.disk }
            return replaceDisk(with: known, identity: nil)
        }
    }

    /// `settings.json.corrupt-20261122T101500Z`, with a counter if that exists already.
    private func backupPath(for target: String) -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let stamp = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
        let base = "\(target).corrupt-\(stamp)"
        var candidate = base
        var counter = 2
        while (try? fileSystem.status(ofItemAt: candidate, followingSymlinks: false)) != nil {
            candidate = "\(base)-\(counter)"
            counter += 1
        }
        return candidate
    }

    /// Temporary files named like this store's, left by a writer that was killed mid-write.
    private func removeAbandonedTemporaryFiles() {
        let target = FilePath.resolvingSymbolicLinks(path, in: fileSystem)
        let directory = FilePath.directory(of: target)
        let prefix = "." + FilePath.lastComponent(of: target) + ".tmp-"
        guard fileSystem.contentsOfDirectory(at: directory).contains(where: { $0.hasPrefix(prefix) }) else { return }
        // Under the lock: a live writer in another process holds it while its temporary file exists.
        try? withFileLock { () throws(StorageError) in
            for name in fileSystem.contentsOfDirectory(at: directory) where name.hasPrefix(prefix) {
                fileSystem.removeFile(at: directory + "/" + name)
            }
        }
    }
}

extension JSONFileBacking {
    /// The change monitor's check: rereads a changed file unless this process
    /// is using it right now, in which case the next tick or event comes back.
    func checkForExternalChange() {
        let thread = currentThreadIdentifier()
        defer { deliverDeferredReports() }
        do throws(StorageError) {
            guard
                let changed = try fileGate.withLockIfAvailable({ _ throws(StorageError) in
                    gateOwner.withLock { $0 = thread }
                    defer { gateOwner.withLock { $0 = 0 } }
                    return try reload(mode: .monitoring)
                })
            else { return }
            announce(changed)
        } catch {
            report(error)
        }
    }

    /// Rereads the file now if it changed; for `JSONFileStore.reload()`.
    func reloadNow() throws(StorageError) {
        if gateOwner.withLock({ $0 }) == currentThreadIdentifier() {
            throw StorageError(
                code: .storeFailure, reason: "a transaction on \(path) called reload() on its own store; the transaction already reads the file afresh.")
        }
        let thread = currentThreadIdentifier()
        defer { deliverDeferredReports() }
        announce(
            try fileGate.withLock { _ throws(StorageError) in
                gateOwner.withLock { $0 = thread }
                defer { gateOwner.withLock { $0 = 0 } }
                return try reload(mode: .monitoring)
            })
    }
}
