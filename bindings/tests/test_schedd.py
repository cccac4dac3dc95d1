"""Job transforms and submit requirements (extensions: classad2 has
neither). The same behaviour as matchmaker::schedd, which is compared with
HTCondor's condor_transform_ads in matchmaker/tests/transforms_oracle.rs."""

import pytest

import classad_rs

CONFIG = """
JOB_TRANSFORM_NAMES = Memory, Group
JOB_TRANSFORM_Memory @=end
   REQUIREMENTS RequestMemory < 1024
   SET RequestMemory 1024
@end
JOB_TRANSFORM_Group = [ Requirements = AcctGroup is undefined; set_AcctGroup = "group_default"; copy_Owner = "SubmittedBy" ]
SUBMIT_REQUIREMENT_NAMES = MaxMemory Project
SUBMIT_REQUIREMENT_MaxMemory = RequestMemory <= 65536
SUBMIT_REQUIREMENT_MaxMemory_REASON = strcat("RequestMemory is ", RequestMemory, ", at most 65536 please")
SUBMIT_REQUIREMENT_Project = ProjectName isnt undefined
SUBMIT_REQUIREMENT_Project_IS_WARNING = true
"""


def test_extension_transform_job_applies_the_configured_transforms_in_order():
    transforms = classad_rs.JobTransforms(config=CONFIG)
    assert transforms.names == ["Memory", "Group"]
    assert len(transforms) == 2
    job = classad_rs.ClassAd('[Owner = "alice"; RequestMemory = 512]')
    out, applied = transforms.transform_job(job)
    assert applied == ["Memory", "Group"]
    assert out["RequestMemory"] == 1024
    assert out["SubmittedBy"] == "alice"
    assert out["AcctGroup"] == "group_default"
    assert job["RequestMemory"] == 512  # the input is not changed


def test_extension_transform_ads_iterates_and_takes_arguments():
    transforms = classad_rs.JobTransforms()
    transforms.add_rules('SET Queue "$(Item)"\nSET Site "$(SITE)"\nTRANSFORM in (short, long)\n', "queues.xform")
    made = transforms.transform_ads(classad_rs.ClassAd('[Owner = "a"]'), {"SITE": "east"})
    assert [ad["Queue"] for ad in made] == ["short", "long"]
    assert all(ad["Site"] == "east" for ad in made)


def test_extension_bad_rules_raise_with_file_and_line():
    transforms = classad_rs.JobTransforms()
    with pytest.raises(classad_rs.ClassAdException, match="bad.xform, line 2: FROB is not a valid transform keyword"):
        transforms.add_rules("SET A 1\nFROB B\n", "bad.xform")


def test_extension_submit_requirements_refuse_and_warn():
    requirements = classad_rs.SubmitRequirements(config=CONFIG)
    assert requirements.names == ["MaxMemory", "Project"]
    ok = requirements.check(classad_rs.ClassAd('[RequestMemory = 2048]'))
    assert ok and ok.accepted
    assert ok.warnings == ["Submit requirement Project not met."]
    big = requirements.check(classad_rs.ClassAd('[RequestMemory = 100000; ProjectName = "p"]'))
    assert not big
    assert big.name == "MaxMemory"
    assert big.reason == "RequestMemory is 100000, at most 65536 please"
    assert big.warnings == []


def test_extension_a_verdicts_repr_is_pythons():
    requirements = classad_rs.SubmitRequirements(config=CONFIG)
    ok = requirements.check(classad_rs.ClassAd("[RequestMemory = 2048]"))
    assert repr(ok) == "SubmitVerdict(accepted=True, name=None, reason=None, warnings=['Submit requirement Project not met.'])"
    big = requirements.check(classad_rs.ClassAd('[RequestMemory = 100000; ProjectName = "p"]'))
    assert repr(big) == "SubmitVerdict(accepted=False, name='MaxMemory', reason='RequestMemory is 100000, at most 65536 please', warnings=[])"
    # Quotes, a backslash, a line break, non-ASCII text and characters
    # Python escapes (given as they are, in the configuration's text), as
    # Python writes them.
    for reason in ["it's", 'say "no"', "both ' and \"", "back\\slash\nnew line\ttab", "naïve ü €", "\x01\x7f\xa0"]:
        quoted = reason.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        config = f'SUBMIT_REQUIREMENT_NAMES = M\nSUBMIT_REQUIREMENT_M = false\nSUBMIT_REQUIREMENT_M_REASON = "{quoted}"\n'
        verdict = classad_rs.SubmitRequirements(config=config).check(classad_rs.ClassAd("[]"))
        assert verdict.reason == reason
        assert repr(verdict) == f"SubmitVerdict(accepted=False, name='M', reason={reason!r}, warnings=[])"


def test_extension_the_schedd_ad_is_my():
    requirements = classad_rs.SubmitRequirements(
        config="SUBMIT_REQUIREMENT_NAMES = Cap\nSUBMIT_REQUIREMENT_Cap = TARGET.RequestCpus <= MY.MaxJobCpus\n"
    )
    schedd = classad_rs.ClassAd("[MaxJobCpus = 16]")
    assert requirements.check(classad_rs.ClassAd("[RequestCpus = 8]"), schedd).accepted
    assert not requirements.check(classad_rs.ClassAd("[RequestCpus = 32]"), schedd).accepted


def test_extension_config_and_config_file_are_exclusive(tmp_path):
    path = tmp_path / "condor_config"
    path.write_text(CONFIG)
    assert classad_rs.JobTransforms(config_file=str(path)).names == ["Memory", "Group"]
    with pytest.raises(classad_rs.ClassAdException):
        classad_rs.JobTransforms(config=CONFIG, config_file=str(path))


def _recorded(text):
    """What condor_submit printed: (accepted, reason, warnings)."""
    warnings = [line[len("WARNING: QMGMT:0:"):] for line in text.splitlines() if line.startswith("WARNING: QMGMT:0:")]
    if "Failed to commit job submission" in text:
        errors = [line[len("ERROR: "):] for line in text.splitlines() if line.startswith("ERROR: ")]
        reason = next(e for e in errors if not e.startswith("Failed to commit"))
        return False, reason, warnings
    assert "submitted to cluster" in text, text
    return True, None, warnings


def test_extension_a_real_schedds_verdicts_and_transforms():
    # matchmaker/tests/data/submit_requirements: 120 jobs a real HTCondor
    # 23.9.6 schedd accepted, warned about or refused (see its README).
    import pathlib

    data = pathlib.Path(__file__).resolve().parents[2] / "matchmaker/tests/data/submit_requirements"
    config = (data / "schedd.conf").read_text()
    transforms = classad_rs.JobTransforms(config=config)
    requirements = classad_rs.SubmitRequirements(config=config)
    schedd = classad_rs.parseOne((data / "schedd.ad").read_text())
    cases = sorted((data / "ads").glob("*.ad"))
    assert len(cases) >= 40
    for path in cases:
        job, _ = transforms.transform_job(classad_rs.parseOne(path.read_text()))
        verdict = requirements.check(job, schedd)
        accepted, reason, warnings = _recorded((data / "expected" / (path.stem + ".submit")).read_text())
        assert (bool(verdict), verdict.reason, verdict.warnings) == (accepted, reason, warnings), path.stem
        if accepted:
            queued = classad_rs.parseOne((data / "expected" / (path.stem + ".q")).read_text())
            for name in ["Transformed", "AcctGroup", "Doubled", "Special", "SubmittedBy"]:
                assert job.get(name) == queued.get(name), (path.stem, name)
