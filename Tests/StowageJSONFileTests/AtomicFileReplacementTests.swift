import Foundation
@testable import StowageJSONFile
import Testing
import StowageTestSupport

/// The steps of a replacement that the store's writes do not reach on their
/// own: its lock file's folder exists before every write, and is the target's.
struct AtomicFileReplacementTests {
    let directory = TemporaryDirectory()

    @Test func aMissingFolderIsMadeWithItsParents() throws {
        let previous = umask(0)
        defer { umask(previous) }
        let path = directory.path + "/made/here/settings.json"
        let fileSystem = FaultInjectingFileSystem.healthy()
        try AtomicFileReplacement(fileSystem: fileSystem).replaceContents(of: path, with: Array("{}\n".utf8))
        #expect(fileBytes(path) == Array("{}\n".utf8))
        #expect(permissions(of: path) == 0o600)
        #expect(permissions(of: directory.path + "/made/here") == 0o700)
        #expect(permissions(of: directory.path + "/made") == 0o700)
        #expect(fileSystem.synchronizedDirectories.all.last == directory.path + "/made/here", "the rename must be made durable")
    }

    /// The guard may hand over a folder it holds open. The replacement owns it
    /// then: it closes it, and uses it for the `fsync` only when it is the
    /// target's folder.
    @Test(arguments: [true, false])
    func aFolderTheGuardHandsOverIsClosedAndOnlyUsedWhenItIsTheTargets(sameFolder: Bool) throws {
        let other = directory.path + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
        let handedOver = sameFolder ? directory.path : other
        let descriptor = open(handedOver, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(descriptor >= 0)
        let fileSystem = FaultInjectingFileSystem.healthy()
        try AtomicFileReplacement(fileSystem: fileSystem).replaceContents(of: directory.file(), with: Array("{}\n".utf8)) { rename throws(SystemCallError) in
            try rename()
            return AtomicFileReplacement.OpenFolder(descriptor: descriptor, path: handedOver)
        }
        #expect(fileBytes(directory.file()) == Array("{}\n".utf8))
        #expect(fileSystem.synchronizedDirectories.all == [directory.path])
        #expect(fileSystem.directoriesOpenedToSynchronize.all == (sameFolder ? [] : [directory.path]))
        // Asked of the file system, not of the descriptor's number: another test's thread may reuse the number at once.
        #expect(fileSystem.closedDescriptors.all.last == descriptor, "the handed-over folder must be closed")
    }
}
