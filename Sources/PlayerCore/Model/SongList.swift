/// Songs in order, kept as the parts they were read in. `add` of a folder gets its directories' arrays, which the
/// library also keeps for the next request: the queue copies each song once from them, where joining the parts
/// into one array first copied every song (a retain of its text and its tags) and released the copy again.
public struct SongList: RandomAccessCollection, Equatable, Sendable, ExpressibleByArrayLiteral {
    public private(set) var parts: [[Song]] = []
    /// `ends[i]`: the index after the last song of `parts[i]`.
    private var ends: [Int] = []

    public init(parts: [[Song]]) {
        for part in parts { append(part) }
    }

    public init(_ songs: [Song]) {
        append(songs)
    }

    public init(arrayLiteral songs: Song...) {
        self.init(songs)
    }

    /// Adds `songs` after the others (as a part of its own).
    public mutating func append(_ songs: [Song]) {
        guard !songs.isEmpty else { return }
        parts.append(songs)
        ends.append(endIndex + songs.count)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { ends.last ?? 0 }

    public subscript(position: Int) -> Song {
        precondition(position >= 0 && position < endIndex, "SongList index out of range")
        // The first part that ends after `position`.
        var low = 0, high = ends.count - 1
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] > position { high = middle } else { low = middle + 1 }
        }
        return parts[low][position - (low == 0 ? 0 : ends[low - 1])]
    }

    /// Part by part, without a search per song.
    public struct Iterator: IteratorProtocol {
        private let parts: [[Song]]
        private var part = 0
        private var index = 0

        fileprivate init(_ parts: [[Song]]) { self.parts = parts }

        public mutating func next() -> Song? {
            while part < parts.count {
                if index < parts[part].count {
                    index += 1
                    return parts[part][index - 1]
                }
                part += 1
                index = 0
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator { Iterator(parts) }

    /// The same songs in the same order, however they are split into parts.
    public static func == (lhs: SongList, rhs: SongList) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}
