import Stowage

extension JSONFileStore {
    /// How store keys map onto the file's JSON object.
    public enum KeyLayout: Sendable, Hashable {
        /// Each key is one member of the top-level object, exactly as written:
        /// `"server.port": 8080`.
        case flat
        /// Keys are paths through nested objects: with separator `"."`, the key
        /// `"server.port"` is the member `port` of the object `server`, so
        /// hand-written configuration files read naturally.
        ///
        /// A key that holds an object and a key below it address the same
        /// data: `"server"` reads the whole `server` object. A key can not be
        /// both a value and a prefix: setting `"server.port"` while `"server"`
        /// holds a string, or setting `"server"` to a non-object while it holds
        /// members, fails with `StorageError.Code.keyConflict`, naming both
        /// keys, and changes nothing. Removing the last member of an object
        /// removes the object too.
        case nested(separator: String = ".")
    }
}

extension JSONFileStore.KeyLayout {
    /// The value `key` addresses in `document`.
    func value(forKey key: String, in document: [String: StoredValue]) -> StoredValue? {
        guard case .nested(let separator) = self, !separator.isEmpty, key.contains(separator) else {
            return document[key]
        }
        var components = key.split(separator: separator, omittingEmptySubsequences: false)[...]
        var current = document
        while let head = components.popFirst() {
            guard let member = current[String(head)] else { return nil }
            if components.isEmpty { return member }
            guard case .dictionary(let members) = member else { return nil }
            current = members
        }
        return nil
    }

    /// Sets (or, for `nil`, removes) `key` in `document`; on a conflict, throws and leaves it unchanged.
    func apply(_ value: StoredValue?, forKey key: String, to document: inout [String: StoredValue]) throws(StorageError) {
        guard case .nested(let separator) = self, !separator.isEmpty else {
            if let value { document[key] = value } else { document.removeValue(forKey: key) }
            return
        }
        let components = key.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
        try Self.apply(value, at: components[...], prefix: [], separator: separator, key: key, to: &document)
    }

    private static func apply(
        _ value: StoredValue?,
        at components: ArraySlice<String>,
        prefix: [String],
        separator: String,
        key: String,
        to members: inout [String: StoredValue]
    ) throws(StorageError) {
        guard let head = components.first else { return }
        if components.count == 1 {
            guard let value else {
                members.removeValue(forKey: head)
                return
            }
            if case .dictionary(let existing)? = members[head], !existing.isEmpty, !value.isDictionary {
                throw conflict(
                    key: key,
                    reason: "it holds members (\(Self.firstMemberKey(existing, under: prefix + [head], separator: separator))), "
                        + "so it can not be set to \(value.kindDescription); remove its members first, or set an object.")
            }
            members[head] = value
            return
        }
        // Take the child out first so it is uniquely referenced and mutates in place.
        var child: [String: StoredValue]
        let hadObject: Bool
        switch members.removeValue(forKey: head) {
        case nil:
            guard value != nil else { return }
            child = [:]
            hadObject = false
        case .dictionary(let childMembers)?:
            child = childMembers
            hadObject = true
        case let other?:
            members[head] = other
            guard value != nil else { return }
            let holder = (prefix + [head]).joined(separator: separator)
            throw conflict(
                key: key,
                reason: "\"\(holder)\" holds \(other.kindDescription), so it can not also hold members; "
                    + "in the nested layout a key is either a value or a prefix.")
        }
        let wasEmpty = child.isEmpty
        do {
            try apply(value, at: components.dropFirst(), prefix: prefix + [head], separator: separator, key: key, to: &child)
        } catch {
            if hadObject { members[head] = .dictionary(child) }
            throw error
        }
        if child.isEmpty, !wasEmpty, value == nil { return }
        members[head] = .dictionary(child)
    }

    private static func conflict(key: String, reason: String) -> StorageError {
        StorageError(code: .keyConflict, key: key, reason: reason)
    }

    private static func firstMemberKey(_ members: [String: StoredValue], under prefix: [String], separator: String) -> String {
        let first = members.keys.min() ?? ""
        return "\"" + (prefix + [first]).joined(separator: separator) + "\""
    }

    /// The keys whose value differs between two documents: the changed
    /// members, and in the nested layout also every object around and below them.
    func changedKeys(from old: [String: StoredValue], to new: [String: StoredValue]) -> [String] {
        var changed = [String]()
        let separator: String? = if case .nested(let separator) = self, !separator.isEmpty { separator } else { nil }
        // Opening a file starts from an empty document: every member is new,
        // and looking each up in an empty dictionary would only hash it for nothing.
        if old.isEmpty, separator == nil { return Array(new.keys) }
        Self.collectMemberChanges(from: old, to: new, under: nil, separator: separator, into: &changed)
        return changed
    }

    /// The changes of the members of two objects, named by `prefix` plus the member's name.
    private static func collectMemberChanges(
        from old: [String: StoredValue], to new: [String: StoredValue], under prefix: String?, separator: String?,
        into changed: inout [String]
    ) {
        let path = { (name: String) in prefix.map { $0 + (separator ?? "") + name } ?? name }
        for (name, newValue) in new {
            collectChanges(from: old.isEmpty ? nil : old[name], to: newValue, path: path(name), separator: separator, into: &changed)
        }
        for (name, oldValue) in old where new[name] == nil {
            collectChanges(from: oldValue, to: nil, path: path(name), separator: separator, into: &changed)
        }
    }

    private static func collectChanges(
        from old: StoredValue?, to new: StoredValue?, path: String, separator: String?, into changed: inout [String]
    ) {
        guard old != new else { return }
        changed.append(path)
        guard let separator else { return }
        collectMemberChanges(
            from: old?.dictionaryMembers ?? [:], to: new?.dictionaryMembers ?? [:], under: path, separator: separator, into: &changed)
    }
}

extension StoredValue {
    fileprivate var isDictionary: Bool {
        if case .dictionary = self { true } else { false }
    }

    fileprivate var dictionaryMembers: [String: StoredValue]? {
        if case .dictionary(let members) = self { members } else { nil }
    }
}

extension JSONFileStore.KeyLayout {
    /// How many objects below the top level enclose `key`'s value: none when flat.
    func enclosingObjectCount(of key: String) -> Int {
        guard case .nested(let separator) = self, !separator.isEmpty else { return 0 }
        return key.split(separator: separator, omittingEmptySubsequences: false).count - 1
    }

    /// The member of the top-level object that holds `key`.
    func topLevelKey(of key: String) -> String {
        guard case .nested(let separator) = self, !separator.isEmpty,
            let head = key.split(separator: separator, maxSplits: 1, omittingEmptySubsequences: false).first
        else { return key }
        return String(head)
    }
}
