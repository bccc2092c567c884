import MPDProtocol

/// One `password "secret@read,add"` line: the `password` command with this secret grants these permissions.
public struct PasswordEntry: Sendable, Equatable {
    public var password: String
    public var permissions: Permission

    public init(password: String, permissions: Permission) {
        self.password = password
        self.permissions = permissions
    }
}

/// The secret never shows up when a configuration is printed or dumped (logs, `check-config`, test failures).
extension PasswordEntry: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "PasswordEntry(password: <hidden>, permissions: \(permissionNames))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["password": "<hidden>", "permissions": permissionNames])
    }

    private var permissionNames: String {
        "[" + Permission.names.filter { permissions.contains($0.1) }.map(\.0).joined(separator: ",") + "]"
    }
}
