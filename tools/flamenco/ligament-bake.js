// SPDX-License-Identifier: GPL-3.0-or-later
//
// Flamenco 3 job type: bake Ligament simulations to keyframes on a farm.
//
// One task per .blend file runs the batch command on a worker,
//
//     {blender} {blenderArgs} SHOT.blend -c ligament bake --output ... --report ...
//
// and a last task, once every bake is done, gathers their JSON reports into one with
// `ligament merge-reports`. A shot is never split into frame ranges: the batch command
// simulates from the world's start frame every time (the solver's saved states live in the
// process that simulated them), so each file is one task.
//
// Install: copy this file into the `scripts` folder next to the flamenco-manager executable
// and restart the Manager (docs/farm.md).

const JOB_TYPE = {
    label: "Ligament Bake",
    description: "Simulate and bake Ligament bodies and ragdolls to keyframes, one task per file",
    settings: [
        // Filled in by the Flamenco add-on: the (packed) file being submitted.
        { key: "blendfile", type: "string", visible: "web",
          description: "The .blend file to bake (set by the Flamenco add-on on submission)" },
        { key: "files", type: "string", visible: "submission",
          description: "Several .blend files to bake in this job, separated by ';' " +
                       "(default: the submitted file)" },
        { key: "output_dir", type: "string", subtype: "dir_path", visible: "submission",
          description: "Where the baked files and the reports go (default: beside each file)" },
        { key: "scene", type: "string", eval: "C.scene.name", visible: "web",
          description: "The scene to bake (default: each file's active scene)" },
        { key: "frames", type: "string", visible: "submission",
          description: "Frames to bake, 'START-END' (default: the Ligament world's range)" },
        { key: "step", type: "int32", default: 1, visible: "submission",
          description: "Key every STEP frames" },
        { key: "extra_args", type: "string", visible: "submission",
          description: "More options for `ligament bake`, as typed on its command line" },
        { key: "report", type: "string", subtype: "file_path", visible: "submission",
          description: "The merged report (default: bake-report.json in the output folder, " +
                       "or beside the first file)" },
    ]
};

function compileJob(job) {
    const settings = job.settings;
    const files = shotFiles(settings);
    const outputDir = (settings.output_dir || "").trim();
    const common = bakeOptions(settings);

    const stems = {};
    const reports = [];
    const bakeTasks = [];
    for (const file of files) {
        const stem = path.stem(file);
        if (outputDir && stems[stem]) {
            throw `'${file}' and '${stems[stem]}' would both bake to ${stem}.baked.blend in ` +
                  `${outputDir}; rename one or leave the output folder empty`;
        }
        stems[stem] = file;
        const where = outputDir || path.dirname(file);
        const report = path.join(where, `${stem}.report.json`);
        reports.push(report);

        const task = author.Task(`bake ${stem}`, "blender");
        task.addCommand(author.Command("blender-render", {
            exe: "{blender}",
            exeArgs: "{blenderArgs}",
            argsBefore: [],
            blendfile: file,
            args: ["-c", "ligament", "bake",
                   "--output", path.join(where, `${stem}.baked.blend`),
                   "--report", report].concat(common),
        }));
        job.addTask(task);
        bakeTasks.push(task);
    }

    const merged = (settings.report || "").trim() ||
        path.join(outputDir || path.dirname(files[0]), "bake-report.json");
    settings.report = merged;   // the job's settings show where the merged report went
    const mergeTask = author.Task("merge reports", "blender");
    // The worker's blender-render command always puts `blendfile` between `argsBefore` and
    // `args`; no .blend is needed here, so the first report takes that place and the
    // command reads `blender -b -c ligament merge-reports REPORT... --output FILE`.
    mergeTask.addCommand(author.Command("blender-render", {
        exe: "{blender}",
        exeArgs: "{blenderArgs}",
        argsBefore: ["-c", "ligament", "merge-reports"],
        blendfile: reports[0],
        args: reports.slice(1).concat(["--output", merged]),
    }));
    for (const task of bakeTasks) {
        mergeTask.addDependency(task);
    }
    job.addTask(mergeTask);
}

// The files of the job: the `files` list, or the submitted `blendfile`.
function shotFiles(settings) {
    const listed = (settings.files || "").split(/[;\n]/).map(f => f.trim()).filter(f => f);
    const files = listed.length ? listed : [(settings.blendfile || "").trim()].filter(f => f);
    if (!files.length) {
        throw "nothing to bake: set 'blendfile' (the Flamenco add-on does) or 'files'";
    }
    const seen = new Set();
    for (const f of files) {
        if (seen.has(f)) {
            throw `'${f}' is listed twice`;
        }
        seen.add(f);
    }
    return files;
}

// The options every file's bake shares.
function bakeOptions(settings) {
    const args = [];
    if (settings.scene) {
        args.push("--scene", settings.scene);
    }
    const frames = (settings.frames || "").trim();
    if (frames) {
        const m = frames.match(/^(-?\d+)\s*-\s*(-?\d+)$/);
        if (!m) {
            throw `frames '${frames}': write START-END, e.g. 1-250`;
        }
        args.push("--start", m[1], "--end", m[2]);
    }
    const step = settings.step === undefined ? 1 : settings.step;
    if (!(Number.isInteger(step) && step >= 1)) {
        throw `step ${step}: a whole number of frames, 1 or more`;
    }
    args.push("--step", String(step));
    const extra = (settings.extra_args || "").trim();
    return extra ? args.concat(extra.split(/\s+/)) : args;
}
