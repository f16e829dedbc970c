# The batches deploy/ansible/rollout.yml's rollout play would run, computed
# by Ansible itself (PlaybookExecutor's own batching, the play's templated
# `hosts` and `serial`), given the order in which the first play's hosts
# answered: that play builds the group of reachable hosts in the order its
# results come back, which varies from run to run. Prints the batches as
# JSON. Run by test/deploy/rollout-batches.e2e.test.ts on the Python that
# ansible-playbook runs on.
#
#   batches.py PLAYBOOK INVENTORY ANSWERED_HOST,... EXTRA_VARS_JSON
import json
import sys

from ansible import context
from ansible.executor.playbook_executor import PlaybookExecutor
from ansible.inventory.manager import InventoryManager
from ansible.module_utils.common.collections import ImmutableDict
from ansible.parsing.dataloader import DataLoader
from ansible.playbook import Playbook
from ansible.template import Templar
from ansible.vars.manager import VariableManager

playbook, inventory, answered, extra = sys.argv[1], sys.argv[2], sys.argv[3].split(","), json.loads(sys.argv[4])
context.CLIARGS = ImmutableDict(
    connection="local", forks=1, check=False, diff=False, syntax=False, start_at_task=None,
    listhosts=False, listtasks=False, listtags=False, extra_vars=[],
)
loader = DataLoader()
inv = InventoryManager(loader=loader, sources=[inventory])
variables = VariableManager(loader=loader, inventory=inv)
variables._extra_vars = extra
# What the first play's group_by leaves: the group, in the order the hosts answered.
inv.add_group("device_agent_reachable")
for host in answered:
    inv.add_host(host, group="device_agent_reachable")
rollout = Playbook.load(playbook, variable_manager=variables, loader=loader).get_plays()[1]
rollout.post_validate(Templar(loader=loader, variables=variables.get_vars(play=rollout)))
executor = PlaybookExecutor(playbooks=[playbook], inventory=inv, variable_manager=variables, loader=loader, passwords={})
print(json.dumps([[h.name for h in batch] for batch in executor._get_serialized_batches(rollout)]))
