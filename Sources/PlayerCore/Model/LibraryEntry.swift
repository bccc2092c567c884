/// One record of a database listing (`lsinfo`, `listall`, `listallinfo`). Shared by the library that produces it
/// and the server that prints it, so neither translates.
public enum LibraryEntry: Sendable, Equatable {
    case directory(path: String, lastModified: Int64?)
    case song(Song)
    case playlist(path: String, lastModified: Int64?)

    /// The song of a `.song` entry (listings turned into what `add` appends).
    public var song: Song? {
        if case .song(let song) = self { return song }
        return nil
    }
}

/// One entry of a raw storage listing (`listfiles`).
public struct StorageEntry: Sendable, Equatable {
    public var name: String
    public var isDirectory: Bool
    public var size: Int64
    public var lastModified: Int64

    public init(name: String, isDirectory: Bool, size: Int64, lastModified: Int64) {
        self.name = name
        self.isDirectory = isDirectory
        self.size = size
        self.lastModified = lastModified
    }
}
