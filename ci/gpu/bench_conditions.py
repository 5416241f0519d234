"""Prints, per benchmark of an opcert bench report, how each repetition was sampled (launches,
noise, why it stopped) and the GPU's readings around it (SM/memory clocks, power, temperature,
clock event reasons at the start and end), so a bench log shows which clocks a figure got."""
import json
import sys


def reading(r):
    if not r:
        return "-"
    reasons = ",".join(x for x in (r.get("clock_reasons") or []) if x != "gpu_idle") or "none"
    power = r.get("power_w")
    return (f'{r.get("sm_clock_mhz")}/{r.get("memory_clock_mhz")} MHz '
            f'{power:.0f} W {r.get("temperature_c")} C [{reasons}]' if power is not None else "-")


report = json.load(open(sys.argv[1]))
print("source:", json.dumps(report.get("bench_settings", {}).get("conditions")))
print("sampling:", json.dumps(report.get("bench_settings", {}).get("sampling")))
for b in report["benchmarks"]:
    flags = ",".join(b.get("condition_flags", [])) or "-"
    print(f'{b["name"]}  seconds {b.get("seconds")}  noise {b.get("noise")}  flags {flags}')
    for i, rep in enumerate(b.get("repetitions", [])):
        c = rep.get("conditions") or {}
        noise = rep.get("noise")
        noise_text = f"{100 * noise:.2f}%" if noise is not None else "-"
        print(f'  rep {i}: {rep.get("samples")} launches in {rep.get("sampling_s") or 0:.2f} s, noise {noise_text}, '
              f'{rep.get("stopped_by")}; start {reading(c.get("start"))}; end {reading(c.get("end"))}')
