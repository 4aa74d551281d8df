// pi's RpcClient starts `node <cliPath> --mode rpc ...`; this cliPath runs the program named
// by RHO_SHIM_BIN with those arguments instead, wiring stdin/stdout/stderr straight through,
// so the same client drives rho.
import { spawn } from "node:child_process";

const bin = process.env.RHO_SHIM_BIN;
if (!bin) {
  process.stderr.write("exec_shim: RHO_SHIM_BIN is not set\n");
  process.exit(2);
}
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
