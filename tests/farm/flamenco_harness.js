// Runs a Flamenco 3 job compiler script as the Manager does and prints what it authored.
//
//     node flamenco_harness.js JOB_TYPE.js JOB.json
//
// JOB.json: {"name", "settings", "metadata", "variables"}. The script runs in a context
// holding only what the Manager's JavaScript VM gives it: `author` (Task, Command), `path`
// (basename, dirname, join, stem), `process`, `print` and `alert`; then `compileJob(job)`
// is called with a job carrying `settings`, `metadata`, `name`, `created` and `addTask`.
// Printed as JSON: the JOB_TYPE, the settings after compiling, and each task (name, type,
// its commands, the names of the tasks it waits for). Each blender-render command is checked
// as the Worker checks it and its command line is built as the Worker builds it
// (`{exe} {exeArgs} {argsBefore} {blendfile} {args}`, the Manager's variables expanded).
// An error thrown by the script is printed as {"error": ...}.
"use strict";
const fs = require("fs");
const vm = require("vm");
const posix = require("path").posix;

const [scriptPath, jobPath] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(jobPath, "utf8"));
const variables = spec.variables || { blender: "blender", blenderArgs: "-b -y" };

// The Manager's `author` module: a task needs a name and a type (author.go).
let nextId = 0;
const author = {
    Task(name, type) {
        name = String(name).trim();
        type = String(type).trim();
        if (!name) throw new Error("author.Task(name, type): name is required");
        if (!type) throw new Error("author.Task(name, type): type is required");
        return {
            uuid: `task-${nextId++}`, name, type, priority: 50, commands: [], dependencies: [],
            addCommand(cmd) { this.commands.push(cmd); },
            addDependency(task) { this.dependencies.push(task); },
        };
    },
    Command(name, parameters) {
        return { name, parameters };
    },
};

// The `path` module (crosspath: forward slashes).
const path = {
    basename: p => posix.basename(p),
    dirname: p => posix.dirname(p),
    join: (...parts) => posix.join(...parts),
    stem: p => posix.basename(p, posix.extname(p)),
};

const tasks = [];
const job = {
    name: spec.name || "job",
    jobType: "ligament-bake",
    priority: 50,
    created: new Date("2025-01-01T12:00:00Z"),
    settings: spec.settings || {},
    metadata: spec.metadata || {},
    addTask(task) { tasks.push(task); },
};

const context = vm.createContext({
    author, path, process: { env: {} },
    print: () => {}, alert: () => {},
});

function expand(value) {
    return value.replace(/\{([^}]+)\}/g, (m, key) => key in variables ? variables[key] : m);
}

function isStrings(value) {
    return Array.isArray(value) && value.every(v => typeof v === "string");
}

// The Worker's checks of a blender-render command (command_blender.go) and its command line.
function commandLine(cmd) {
    const p = cmd.parameters;
    if (cmd.name !== "blender-render") return null;
    if (typeof p.exe !== "string" || !p.exe) throw new Error("missing 'exe' parameter");
    if (!isStrings(p.argsBefore)) throw new Error("invalid 'argsBefore' parameter");
    if (typeof p.blendfile !== "string" || !p.blendfile)
        throw new Error("missing 'blendfile' parameter");
    if (!isStrings(p.args)) throw new Error("invalid 'args' parameter");
    const exeArgs = expand(p.exeArgs || "").split(/\s+/).filter(a => a);
    return [expand(p.exe), ...exeArgs, ...p.argsBefore, p.blendfile, ...p.args];
}

let out;
try {
    vm.runInContext(fs.readFileSync(scriptPath, "utf8") +
        "\n;this.__job_type = { JOB_TYPE, compileJob };", context, { filename: scriptPath });
    const { JOB_TYPE, compileJob } = context.__job_type;
    compileJob(job);
    out = {
        jobType: JOB_TYPE,
        settings: job.settings,
        tasks: tasks.map(t => ({
            name: t.name, type: t.type,
            commands: t.commands.map(c => ({ name: c.name, parameters: c.parameters,
                                             commandLine: commandLine(c) })),
            dependencies: t.dependencies.map(d => d.name),
        })),
    };
} catch (err) {
    out = { error: String(err && err.message !== undefined ? err.message : err) };
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
