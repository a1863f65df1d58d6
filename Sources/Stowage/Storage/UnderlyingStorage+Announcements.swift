extension UnderlyingStorage {
    /// Tells references and observers that `key` changed behind Stowage's
    /// back: another process wrote it, a file was reloaded, a bulk operation
    /// replaced it. Writes made through Stowage need no announcement.
    package func announceChange(forKey key: String) {
        for reference in ReferenceRegistry.shared.references(storeID: ObjectIdentifier(self), key: key) {
            reference.storageDidChange()
        }
        StoreChangeBroadcaster.shared.broadcast(.key(key), fromStoreID: ObjectIdentifier(self))
    }

    /// Announces several changed keys at once; a write made elsewhere, a reload; writes made through Stowage need no announcement.
    public func announceChanges<Keys: Sequence<String>>(forKeys keys: Keys) {
        for key in keys { announceChange(forKey: key) }
    }

    /// Announces that any key may have changed, when the store can not tell which.
    public func announceChangeOfAllKeys() {
        for reference in ReferenceRegistry.shared.references(store: self) {
            reference.storageDidChange()
        }
        StoreChangeBroadcaster.shared.broadcast(.allKeys, fromStoreID: ObjectIdentifier(self))
    }
}
