// The soak test of the JSON file store: see SoakCoordinator.swift for the
// parent's part and Scripts/soak.sh for how to run it. Not a product.
#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "worker":
    exit(SoakWorker.run(SoakOptions(arguments.dropFirst())))
case "editor":
    exit(ExternalEditor.run(SoakOptions(arguments.dropFirst())))
case "exiter":
    exit(DisruptedWriters.exiter(SoakOptions(arguments.dropFirst())))
case "faulted":
    exit(DisruptedWriters.faulted(SoakOptions(arguments.dropFirst())))
default:
    let options = SoakOptions(arguments)
    if options.flags.contains("help") {
        print(SoakCoordinator.usage)
        exit(0)
    }
    exit(SoakCoordinator(options).run())
}
