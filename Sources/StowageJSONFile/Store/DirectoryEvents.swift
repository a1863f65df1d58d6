/// What a batch of inotify events says changed: the names of the entries
/// each watched directory reported, or that everything must be checked.
///
/// A settings file's folder also holds its lock file and the temporary files
/// every writer makes, and each write reports several events about those.
/// Matching events to the watched files by name lets a process that shares a
/// folder with busy writers skip the checks, and the wakeups of its change
/// monitor's queue, that concern none of its files.
struct DirectoryEvents: Equatable {
    /// The entries named by events, by watch descriptor, as raw bytes (a
    /// name need not be UTF-8).
    var namesByWatch: [Int32: Set<EntryName>] = [:]
    /// An event about a directory itself (deleted, moved, unwatched) or a
    /// lost event (the queue overflowed): every file must be checked.
    var concernsEveryFile = false

    /// Adds the events in `bytes`, a whole number of `struct inotify_event`s as `read` returns them.
    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        let header = 16  // wd, mask, cookie and len, four bytes each.
        var offset = 0
        while offset + header <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let nameLength = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameEnd = min(offset + header + nameLength, bytes.count)
            // The name is padded with NULs to its length; none at all for the directory itself.
            let name = Array(bytes[(offset + header)..<nameEnd].prefix { $0 != 0 })
            if name.isEmpty || watch < 0 {
                concernsEveryFile = true
            } else {
                namesByWatch[watch, default: []].insert(EntryName(bytes: name))
            }
            offset += header + nameLength
        }
    }

    /// Whether these events may concern the file `name` in the directory watched as `watch`.
    func concern(_ name: [UInt8], watchedAs watch: Int32?) -> Bool {
        guard !concernsEveryFile else { return true }
        guard let watch else { return false }
        return namesByWatch[watch]?.contains(EntryName(bytes: name)) == true
    }

    /// A name as raw bytes, hashed in one call: `[UInt8]`'s own hashing
    /// takes the bytes one at a time, and showed in profiles of busy folders.
    struct EntryName: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}
