# H2 molecule in a small box, LDA, finite differences (GPAW's tutorial, smaller box and grid)
from ase import Atoms
from gpaw import GPAW
h2 = Atoms('H2', positions=[(0, 0, 0), (0, 0, 0.74)])
h2.center(vacuum=2.5)
h2.calc = GPAW(mode='fd', xc='LDA', h=0.25, txt='h2.txt')
e = h2.get_potential_energy()
from gpaw.mpi import world
if world.rank == 0:
    print('energy %.4f eV' % e)
