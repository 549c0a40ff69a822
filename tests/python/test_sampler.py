"""aaw_sampler: the sampling profiler behind AAW_PYTHON_SAMPLE."""

import os
import tempfile
import time
import unittest

import aaw_sampler


def _busy(seconds):
    """Spends `seconds` of CPU time in this function's own frame."""
    end = time.process_time() + seconds
    total = 0
    while time.process_time() < end:
        total += sum(range(200))
    return total


class SamplerTest(unittest.TestCase):
    def test_counts_the_functions_on_the_stack_while_the_process_runs(self):
        sampler = aaw_sampler.Sampler()
        sampler.start()
        try:
            _busy(0.3)
        finally:
            sampler.stop()
        self.assertGreater(sampler.samples, 20, "a tick every 2 ms of CPU time")
        self.assertGreater(sampler.exclusive["test_sampler.py:_busy"], sampler.samples // 2)
        self.assertEqual(sampler.inclusive["test_sampler.py:test_counts_the_functions_on_the_stack_while_the_process_runs"],
                         sampler.samples, "the caller is on the stack at every tick")
        report = sampler.report()
        self.assertTrue(report.startswith("samples %d " % sampler.samples))
        self.assertIn("test_sampler.py:_busy", report)

    def test_stopped_it_takes_no_more_samples(self):
        sampler = aaw_sampler.Sampler()
        sampler.start()
        _busy(0.05)
        sampler.stop()
        taken = sampler.samples
        _busy(0.05)
        self.assertEqual(sampler.samples, taken)

    def test_the_process_sampler_writes_its_report_where_asked(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "samples")
            aaw_sampler.start_sampling()
            try:
                _busy(0.05)
            finally:
                aaw_sampler.stop_and_write(path)
            with open(path, encoding="utf-8") as f:
                self.assertTrue(f.read().startswith("samples "))


if __name__ == "__main__":
    unittest.main()
