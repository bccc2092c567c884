/// A configuration problem, reported as one line that names the file and line, so `nosignal check-config` and
/// the start-up failure (exit code 2) can print it as is and the user can jump straight to the spot.
public struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file the problem is in; nil only when there is no file at all (for example a missing `$HOME`).
    public var file: String?
    /// 1-based; nil when the problem concerns the file as a whole (it cannot be read).
    public var line: Int?
    /// What is wrong, without the location.
    public var message: String

    public init(file: String?, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`, the shape compilers use, which editors and terminals turn into links.
    public var description: String {
        switch (file, line) {
        case let (file?, line?): return "\(file):\(line): \(message)"
        case let (file?, nil): return "\(file): \(message)"
        case let (nil, line?): return "line \(line): \(message)"
        case (nil, nil): return message
        }
    }
}
