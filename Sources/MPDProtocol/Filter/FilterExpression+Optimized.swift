extension FilterExpression {
    /// The same filter in its simplest shape, as MPD's `OptimizeSongFilter` (`src/song/Filter.cxx`) leaves it before
    /// matching: a `(!…)` around a string comparison becomes the opposite comparison (`(!(artist == 'x'))` is
    /// `(artist != 'x')`, so a chain of `(!` of any length folds away), a double `(!` cancels, an `AND` inside an
    /// `AND` is spliced into it and an `AND` of one item is that item. Which songs match never changes; what
    /// changes is the depth of the tree, which a client controls: SQLite refuses an expression nested a few dozen
    /// levels deep, and a matcher walks every level for every song.
    public func optimized() -> FilterExpression {
        switch self {
        case .not(let inner):
            switch inner.optimized() {
            case .tag(let selector, var match):
                match.negated.toggle()
                return .tag(selector, match)
            case .not(let twice):
                return twice
            case let other:
                return .not(other)
            }
        case .and(let items):
            var flat: [FilterExpression] = []
            flat.reserveCapacity(items.count)
            for item in items {
                let simpler = item.optimized()
                if case .and(let inner) = simpler { flat += inner } else { flat.append(simpler) }
            }
            return flat.count == 1 ? flat[0] : .and(flat)
        default:
            return self
        }
    }
}
